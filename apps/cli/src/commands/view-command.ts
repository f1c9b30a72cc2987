import { resolve } from 'node:path';
import { UsageError } from '@xsb/core';
import type { CliContext } from '../cli-context';
import { configFlags, portFlag, requireExistingPath } from '../cli-options';
import type { CommandModule } from '../command-module';
import { untilSignal } from './serve-command';

interface ViewFlags {
  data?: string;
  study?: string;
  port?: string;
  host?: string;
  thumbnails?: string;
}

/** `xsb view`: serves the reports of a data folder on 127.0.0.1 until Ctrl-C (SIGINT) or SIGTERM. */
export const viewCommand: CommandModule = {
  name: 'view',
  register(program, context) {
    program
      .command('view')
      .description(
        'serve an index of every run, bench run and rubric result under the data folder, with their HTML reports (127.0.0.1 only)',
      )
      .option('--data <dir>', 'data folder (default: config dataDir)')
      .option(
        '--study <dir>',
        "serve a study's page instead, saving each annotator's answers into <dir>/annotations/ as they go",
      )
      .option('--port <n>', 'port on 127.0.0.1 (default 7575; 0 picks a free one)')
      .option('--host <address>', 'only 127.0.0.1 or localhost (anything else is refused)')
      .option('--thumbnails <size>', 'slide thumbnails: off, small (default) or large')
      .action(async (flags: ViewFlags) => {
        if (flags.study !== undefined) return serveStudy(context, flags);
        const { config } = context.loadConfig(configFlags(flags));
        const dataDir = requireExistingPath('data folder', resolve(context.io.cwd, config.dataDir));
        const port = portFlag(flags.port, 7575);
        const { parseThumbnailSize, startReportViewer } = await import('@xsb/report');
        const thumbnails = parseThumbnailSize(flags.thumbnails);
        const viewer = await startReportViewer({
          dataDir,
          port,
          ...(flags.host !== undefined ? { host: flags.host } : {}),
          thumbnails,
          env: context.io.env,
          onBuild: (entry, ms) =>
            context.warn(`built ${entry.kind} report ${entry.name} (${(ms / 1000).toFixed(1)} s)`),
        });
        context.print(`xsb view: reports of ${dataDir} at ${viewer.url} (Ctrl-C stops)`);
        await untilSignal(() => viewer.close());
      });
  },
};

/** `xsb view --study STUDY`: the study page on 127.0.0.1, answers saved into the study as annotators go. */
async function serveStudy(context: CliContext, flags: ViewFlags): Promise<void> {
  if (flags.host !== undefined && flags.host !== '127.0.0.1' && flags.host !== 'localhost')
    throw new UsageError(
      `--host must be 127.0.0.1 or localhost: a study is served to this machine only (got ${flags.host})`,
    );
  const dir = requireExistingPath('study folder', resolve(context.io.cwd, flags.study!));
  const { startStudyServer } = await import('@xsb/study');
  const server = await startStudyServer({ dir, port: portFlag(flags.port, 7575) });
  context.print(
    `xsb view: the study ${dir} at ${server.url} (answers saved into its annotations/; Ctrl-C stops)`,
  );
  await untilSignal(() => server.close());
}

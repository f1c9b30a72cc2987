import { resolve } from 'node:path';
import { configFlags, portFlag, requireExistingPath } from '../cli-options';
import type { CommandModule } from '../command-module';
import { untilSignal } from './serve-command';

interface ViewFlags {
  data?: string;
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
      .option('--port <n>', 'port on 127.0.0.1 (default 7575; 0 picks a free one)')
      .option('--host <address>', 'only 127.0.0.1 or localhost (anything else is refused)')
      .option('--thumbnails <size>', 'slide thumbnails: off, small (default) or large')
      .action(async (flags: ViewFlags) => {
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

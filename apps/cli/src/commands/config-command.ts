import type { CommandModule } from '../command-module';

/** `xsb config show`: the effective configuration after file, environment and flags (never keys). */
export const configCommand: CommandModule = {
  name: 'config',
  register(program, context) {
    const config = program.command('config').description('inspect the effective configuration');
    config
      .command('show')
      .description('print the merged configuration (config file < environment < flags) as JSON')
      .action(() => {
        const { config: effective, configFile } = context.loadConfig();
        context.printJson({ configFile: configFile ?? null, ...effective });
      });
  },
};

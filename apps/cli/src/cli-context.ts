import {
  createProgressReporter,
  type LoadedConfig,
  loadConfig,
  type ProgressReporter,
  type XsbConfigInput,
} from '@xsb/core';

/** What a command needs from the outside world, injectable so tests can run commands in-process. */
export interface CliIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export interface CliContext {
  io: CliIo;
  /** Loads config with the command's flags on top of file and environment (ConfigError → exit 2). */
  loadConfig(flags?: Partial<XsbConfigInput>): LoadedConfig;
  progress(): ProgressReporter;
  print(line: string): void;
  printJson(value: unknown): void;
  warn(line: string): void;
}

export function createCliContext(io: CliIo, globals: () => { config?: string }): CliContext {
  return {
    io,
    loadConfig(flags) {
      const configFile = globals().config;
      return loadConfig({
        cwd: io.cwd,
        env: io.env,
        ...(flags ? { flags } : {}),
        ...(configFile ? { configFile } : {}),
      });
    },
    progress() {
      return createProgressReporter({ stream: io.stderr, plain: !io.stderr.isTTY || Boolean(io.env.CI) });
    },
    print(line) {
      io.stdout.write(`${line}\n`);
    },
    printJson(value) {
      io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    },
    warn(line) {
      io.stderr.write(`${line}\n`);
    },
  };
}

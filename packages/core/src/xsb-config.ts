import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './errors';
import { environmentWithDotenv } from './load-dotenv';
import { API_SCOPES } from './schemas/api-request';
import { formatIssuePath } from './validate-record';

const positiveInt = z.coerce.number().int().positive();

export const providerLimitsSchema = z.object({
  maxConcurrency: positiveInt.optional(),
  requestsPerMinute: positiveInt.optional(),
  tokensPerMinute: positiveInt.optional(),
  timeoutMs: positiveInt.optional(),
  maxAttempts: positiveInt.optional(),
  maxTotalWaitMs: positiveInt.optional(),
});
export type ProviderLimits = z.infer<typeof providerLimitsSchema>;

/** USD per million tokens, by kind. */
export const modelPriceSchema = z.object({
  input: z.number().min(0),
  output: z.number().min(0),
  cacheRead: z.number().min(0).optional(),
  cacheWrite: z.number().min(0).optional(),
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;

const booleanish = z.union([
  z.boolean(),
  z
    .enum(['1', 'true', 'yes', 'on', '0', 'false', 'no', 'off', ''])
    .transform((v) => ['1', 'true', 'yes', 'on'].includes(v)),
]);

/**
 * The HTTP API (`xsb serve`, `xsb worker`). Tokens appear here only as the sha256 of the token, so a
 * config file never holds a secret; the tokens themselves come from `XSB_API_TOKENS` (see `@xsb/api`).
 */
const apiConfigSchema = z
  .object({
    tokens: z
      .array(
        z.object({
          name: z.string().min(1),
          sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be the lowercase hex sha256 of the token'),
          scopes: z.array(z.enum(API_SCOPES)).min(1),
        }),
      )
      .default([]),
    /** Requests per minute and token. */
    rateLimitPerMinute: positiveInt.default(600),
    /** Largest request body, in MB (10^6 bytes). */
    bodyLimitMb: positiveInt.default(100),
    /** Jobs run at once by one process. */
    workers: positiveInt.default(2),
    /** Seconds SIGTERM waits for running jobs before checkpointing them as queued. */
    drainTimeoutS: positiveInt.default(30),
    /** `redis://HOST:PORT` for BullMQ; unset: the embedded SQLite store in the data folder. */
    queue: z.string().min(1).optional(),
  })
  .prefault({});

/** The one typed configuration of xsb. Sources in rising precedence: config file, environment, flags. */
export const xsbConfigSchema = z.object({
  dataDir: z.string().min(1).default('data'),
  run: z.string().min(1).default('default'),
  judge: z.string().min(1).default('lexical'),
  cacheDir: z.string().min(1),
  noCache: booleanish.default(false),
  refresh: booleanish.default(false),
  pdfParser: z.enum(['unpdf', 'mineru']).default('unpdf'),
  debug: booleanish.default(false),
  providers: z.record(z.string(), providerLimitsSchema).default({}),
  prices: z.record(z.string(), modelPriceSchema).default({}),
  api: apiConfigSchema,
});
export type XsbConfig = z.infer<typeof xsbConfigSchema>;
export type XsbConfigInput = z.input<typeof xsbConfigSchema>;

/** Environment variables that set config keys (keys themselves are read by the providers). */
export const CONFIG_ENVIRONMENT: Readonly<Record<string, keyof XsbConfigInput>> = {
  XSB_DATA_DIR: 'dataDir',
  XSB_RUN: 'run',
  XSB_JUDGE: 'judge',
  XSB_CACHE_DIR: 'cacheDir',
  XSB_NO_CACHE: 'noCache',
  XSB_REFRESH: 'refresh',
  XSLIDESBENCH_PDF_PARSER: 'pdfParser',
  XSB_DEBUG: 'debug',
};

export const CONFIG_FILE_NAMES = ['xsb.config.json', 'xsb.config.yaml', 'xsb.config.yml'] as const;

export interface LoadConfigOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Values from command-line flags; `undefined` members are ignored. */
  flags?: Partial<XsbConfigInput>;
  /** An explicit config file (`--config`); otherwise the first of CONFIG_FILE_NAMES in cwd. */
  configFile?: string;
}

export interface LoadedConfig {
  config: XsbConfig;
  /** The environment with `.env` underneath: where provider keys are looked up. */
  env: Record<string, string>;
  configFile: string | undefined;
}

export function defaultCacheDir(env: Record<string, string | undefined>): string {
  const base = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'xsb');
}

function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${file}: cannot read config file (${(error as Error).message})`, { cause: error });
  }
  try {
    const parsed = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
    if (parsed === null || parsed === undefined) return {};
    if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('top level must be an object');
    return parsed as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`${file}: invalid config file (${(error as Error).message})`, { cause: error });
  }
}

/** Loads, merges and validates the configuration; any problem is a ConfigError (exit 2). */
export function loadConfig(options: LoadConfigOptions = {}): LoadedConfig {
  const cwd = options.cwd ?? process.cwd();
  const env = environmentWithDotenv(cwd, options.env ?? process.env);
  const configFile = options.configFile
    ? resolve(cwd, options.configFile)
    : CONFIG_FILE_NAMES.map((name) => join(cwd, name)).find((file) => existsSync(file));
  const fromFile = configFile ? readConfigFile(configFile) : {};
  const fromEnv: Record<string, unknown> = {};
  for (const [variable, key] of Object.entries(CONFIG_ENVIRONMENT)) {
    const value = env[variable];
    if (value !== undefined && value !== '') fromEnv[key] = value;
  }
  const fromFlags = Object.fromEntries(
    Object.entries(options.flags ?? {}).filter(([, v]) => v !== undefined),
  );
  const merged = { cacheDir: defaultCacheDir(env), ...fromFile, ...fromEnv, ...fromFlags };
  const result = xsbConfigSchema.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const where = configFile
      ? ` (config file ${configFile}, environment or flags)`
      : ' (environment or flags)';
    throw new ConfigError(`invalid configuration: "${formatIssuePath(issue.path)}" ${issue.message}${where}`);
  }
  return { config: result.data, env, configFile };
}

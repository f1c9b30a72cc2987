import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ConfigError } from './errors';
import { environmentWithDotenv } from './load-dotenv';
import { didYouMean } from './nearest-name';
import { API_SCOPES, portableNameSchema } from './schemas/api-names';
import { formatIssuePath } from './validate-record';

const positiveInt = z.coerce.number().int().positive();

const PROVIDER_LIMIT_ALIASES = {
  rpm: 'requestsPerMinute',
  tpm: 'tokensPerMinute',
  max_concurrency: 'maxConcurrency',
} as const;

/** Renames the short aliases to the full names; giving both spellings of one limit is an error. */
function expandLimitAliases(value: unknown, context: z.RefinementCtx): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [alias, name] of Object.entries(PROVIDER_LIMIT_ALIASES)) {
    if (!(alias in out)) continue;
    if (name in out) {
      context.addIssue({ code: 'custom', path: [alias], message: `is the same limit as "${name}": set one` });
      continue;
    }
    out[name] = out[alias];
    delete out[alias];
  }
  return out;
}

const providerLimitsObject = z.strictObject({
  /** The ceiling of calls in flight; adaptive concurrency moves below it on 429/529 and back. */
  maxConcurrency: positiveInt.optional(),
  requestsPerMinute: positiveInt.optional(),
  tokensPerMinute: positiveInt.optional(),
  timeoutMs: positiveInt.optional(),
  maxAttempts: positiveInt.optional(),
  maxTotalWaitMs: positiveInt.optional(),
});

/** Limits of one provider; `rpm`, `tpm` and `max_concurrency` are accepted as short names. */
export const providerLimitsSchema = z.preprocess(
  (value, context) => expandLimitAliases(value, context),
  providerLimitsObject,
);
export type ProviderLimits = z.infer<typeof providerLimitsObject>;

const price = z.number().min(0);

/** USD per million tokens, by kind. */
export const modelPriceSchema = z.strictObject({
  input: price,
  output: price,
  /** Input served from the provider's prompt cache; the input price when unset. */
  cacheRead: price.optional(),
  /** Input written to the prompt cache (Anthropic); the input price when unset. */
  cacheWrite: price.optional(),
  /** Batch API prices; a kind left out costs 50 % of its online price, as both providers bill. */
  batch: z
    .strictObject({
      input: price.optional(),
      output: price.optional(),
      cacheRead: price.optional(),
      cacheWrite: price.optional(),
    })
    .optional(),
});
export type ModelPrice = z.infer<typeof modelPriceSchema>;

/** Config `batch`: the tunable part of @xsb/llm's `BatchOptions` (its README lists meanings and defaults). */
const batchSettingsSchema = z.strictObject({
  maxRequestsPerBatch: positiveInt.optional(),
  maxBytesPerBatch: positiveInt.optional(),
  maxRounds: positiveInt.optional(),
  idleMs: positiveInt.optional(),
  maxCollectMs: positiveInt.optional(),
  pollIntervalMs: positiveInt.optional(),
  maxPollIntervalMs: positiveInt.optional(),
  deadlineMs: positiveInt.optional(),
  cancelGraceMs: positiveInt.optional(),
});

const booleanish = z.union([
  z.boolean(),
  z
    .enum(['1', 'true', 'yes', 'on', '0', 'false', 'no', 'off', ''])
    .transform((v) => ['1', 'true', 'yes', 'on'].includes(v)),
]);

/** The placeholders a command generator's argv template may use (`{source}` …); `{{`/`}}` are literal braces. */
export const GENERATOR_PLACEHOLDERS = [
  'source',
  'source_dir',
  'audience',
  'condition',
  'prompt',
  'out',
  'case',
] as const;
export type GeneratorPlaceholder = (typeof GENERATOR_PLACEHOLDERS)[number];

const PLACEHOLDER = /\{\{|\}\}|\{([^{}]*)\}/g;

export function unknownGeneratorPlaceholders(argument: string): string[] {
  const known: readonly string[] = GENERATOR_PLACEHOLDERS;
  return [...argument.matchAll(PLACEHOLDER)]
    .map((match) => match[1])
    .filter((name): name is string => name !== undefined && !known.includes(name));
}

/** `generators.<name>`: an external deck generator; `command` is an argv, never run through a shell. */
const generatorConfigSchema = z.strictObject({
  command: z
    .array(z.string())
    .min(1)
    .refine((argv) => (argv[0] ?? '').trim() !== '', 'the program (first element) must not be empty')
    .superRefine((argv, context) => {
      argv.forEach((argument, index) => {
        for (const name of unknownGeneratorPlaceholders(argument)) {
          context.addIssue({
            code: 'custom',
            path: [index],
            message: `unknown placeholder {${name}} (known: ${GENERATOR_PLACEHOLDERS.map((known) => `{${known}}`).join(' ')})`,
          });
        }
      });
    }),
  timeout_s: z.number().positive().default(3600),
  env: z
    .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'is not a variable name'), z.string())
    .default({}),
  cwd: z.string().min(1).optional(),
  format: z.enum(['pptx', 'pdf']).default('pptx'),
});
export type GeneratorConfig = z.infer<typeof generatorConfigSchema>;
/** The HTTP API; tokens appear only as their sha256 so a config file never holds a secret. */
const apiConfigSchema = z
  .strictObject({
    tokens: z
      .array(
        z.strictObject({
          name: z.string().min(1),
          sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be the lowercase hex sha256 of the token'),
          scopes: z.array(z.enum(API_SCOPES)).min(1),
        }),
      )
      .default([]),
    rateLimitPerMinute: positiveInt.default(600),
    /** MB (10^6 bytes). */
    bodyLimitMb: positiveInt.default(100),
    workers: positiveInt.default(2),
    processes: positiveInt.default(1),
    drainTimeoutS: positiveInt.default(30),
    /** `redis://HOST:PORT` for BullMQ; unset: the embedded SQLite store in the data folder. */
    queue: z.string().min(1).optional(),
    /** Unset: any portable name is a system of its own. */
    systems: z.array(portableNameSchema).min(1).optional(),
  })
  .prefault({});

/** The one typed configuration of xsb. Sources in rising precedence: config file, environment, flags. */
export const xsbConfigSchema = z.strictObject({
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
  batch: batchSettingsSchema.default({}),
  generators: z
    .record(z.string(), generatorConfigSchema)
    // Key rules are checked here: zod reports a failed record key without its message.
    .superRefine((generators, context) => {
      for (const name of Object.keys(generators)) {
        const problem =
          name === 'xsb-baseline'
            ? 'xsb-baseline is the built-in generator; name yours differently'
            : /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)
              ? undefined
              : 'is not a usable system name (letters, digits, ".", "_", "-"; it names a folder)';
        if (problem) context.addIssue({ code: 'custom', path: [name], message: problem });
      }
    })
    .default({}),
  api: apiConfigSchema,
});
export type XsbConfig = z.infer<typeof xsbConfigSchema>;
export type XsbConfigInput = z.input<typeof xsbConfigSchema>;

/** Environment variables that set config keys (API keys themselves are read by the providers). */
const CONFIG_ENVIRONMENT: Readonly<Record<string, keyof XsbConfigInput>> = {
  XSB_DATA_DIR: 'dataDir',
  XSB_RUN: 'run',
  XSB_JUDGE: 'judge',
  XSB_CACHE_DIR: 'cacheDir',
  XSB_NO_CACHE: 'noCache',
  XSB_REFRESH: 'refresh',
  XSLIDESBENCH_PDF_PARSER: 'pdfParser',
  XSB_DEBUG: 'debug',
};

const CONFIG_FILE_NAMES = ['xsb.config.json', 'xsb.config.yaml', 'xsb.config.yml'] as const;

export interface LoadConfigOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Values from command-line flags; `undefined` members are ignored. */
  flags?: Partial<XsbConfigInput>;
  /** `--config`; otherwise the first of CONFIG_FILE_NAMES in cwd. */
  configFile?: string;
}

export interface LoadedConfig {
  config: XsbConfig;
  /** The environment with `.env` underneath: where provider keys are looked up. */
  env: Record<string, string>;
  configFile: string | undefined;
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
  const cacheDir = join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'xsb');
  const merged = { cacheDir, ...fromFile, ...fromEnv, ...fromFlags };
  const result = xsbConfigSchema.safeParse(merged);
  if (!result.success) {
    const where = configFile
      ? ` (config file ${configFile}, environment or flags)`
      : ' (environment or flags)';
    const unknown = result.error.issues.flatMap((issue) =>
      issue.code === 'unrecognized_keys' ? unknownKeyMessages(issue.path, issue.keys) : [],
    );
    if (unknown.length > 0) throw new ConfigError(`invalid configuration: ${unknown.join('; ')}${where}`);
    const issue = result.error.issues[0]!;
    throw new ConfigError(`invalid configuration: "${formatIssuePath(issue.path)}" ${issue.message}${where}`);
  }
  return { config: result.data, env, configFile };
}

/** The keys a config object at `path` accepts (aliases included), found by walking the schema. */
function knownKeysAt(path: ReadonlyArray<PropertyKey>): string[] {
  let schema: unknown = xsbConfigSchema;
  const remaining = [...path];
  for (;;) {
    const def = (schema as { _zod?: { def?: Record<string, unknown> } })._zod?.def;
    if (!def) return [];
    if (def.type === 'object') {
      const shape = def.shape as Record<string, unknown>;
      if (remaining.length === 0) {
        const aliases = schema === providerLimitsObject ? Object.keys(PROVIDER_LIMIT_ALIASES) : [];
        return [...Object.keys(shape), ...aliases];
      }
      schema = shape[String(remaining.shift())];
    } else if (def.type === 'record') {
      remaining.shift();
      schema = def.valueType;
    } else if (def.type === 'array') {
      remaining.shift();
      schema = def.element;
    } else if (def.type === 'pipe') schema = def.out;
    else if ('innerType' in def) schema = def.innerType;
    else return [];
  }
}

/** `unknown key "generators.mine.timeout" (did you mean "timeout_s"?)`, one per key. */
function unknownKeyMessages(path: ReadonlyArray<PropertyKey>, keys: readonly string[]): string[] {
  const known = knownKeysAt(path);
  return keys.map(
    (key) =>
      `unknown key "${formatIssuePath([...path, key])}"${didYouMean(key, known)}${known.length > 0 ? ` (known: ${known.join(', ')})` : ''}`,
  );
}

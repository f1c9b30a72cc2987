import { existsSync } from 'node:fs';
import { ConfigError, isXsbError, readUtf8Text, validateRecord } from '@xsb/core';
import { parse as parseYaml } from 'yaml';
import { type BenchConfigFile, benchConfigFileSchema } from '../schemas/bench-config';
import { BUILT_IN_FACTORS, type FactorDefinition } from './bench-factors';

export interface LoadedBenchConfig {
  file: string | null;
  configurations: BenchConfigFile['configurations'];
  /** Built-in factors, then the file's, in declared order. */
  factors: FactorDefinition[];
}

/**
 * Reads `bench.yaml` (when it exists; none means no named configuration and the built-in factors
 * only). Strict: unknown keys, bad values and factor names that shadow a built-in one are a
 * ConfigError naming the file and the field (exit 2, before any work).
 */
export async function loadBenchConfig(
  file: string,
  options: { required?: boolean } = {},
): Promise<LoadedBenchConfig> {
  if (!existsSync(file)) {
    if (options.required) throw new ConfigError(`${file}: no such bench configuration file`);
    return { file: null, configurations: {}, factors: [...BUILT_IN_FACTORS] };
  }
  let parsed: unknown;
  try {
    parsed = parseYaml(await readUtf8Text(file)) ?? {};
  } catch (error) {
    if (isXsbError(error)) throw new ConfigError(error.message, { cause: error });
    throw new ConfigError(`${file}: not valid YAML (${(error as Error).message})`, { cause: error });
  }
  let config: BenchConfigFile;
  try {
    config = validateRecord(benchConfigFileSchema, parsed, { file });
  } catch (error) {
    throw new ConfigError((error as Error).message, { cause: error });
  }
  const builtIn = new Set(BUILT_IN_FACTORS.map((factor) => factor.name));
  const factors = [...BUILT_IN_FACTORS];
  for (const [name, factor] of Object.entries(config.factors)) {
    if (builtIn.has(name))
      throw new ConfigError(`${file}: factor "${name}" is built in; give yours another name`);
    factors.push({
      name,
      description: factor.description ?? '',
      off: factor.off,
      on: factor.on,
      builtIn: false,
    });
  }
  if ('default' in config.configurations)
    throw new ConfigError(
      `${file}: configuration "default" is built in (the evaluation as xsb eval runs it)`,
    );
  return { file, configurations: config.configurations, factors };
}

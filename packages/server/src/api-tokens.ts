import { hash, timingSafeEqual } from 'node:crypto';
import { API_SCOPES, type ApiScope, ConfigError, portableNameSchema } from '@xsb/core';

/** A bearer token: its name (logged, recorded on jobs), its sha256, its scopes. */
export interface ApiToken {
  name: string;
  sha256: Buffer;
  scopes: ReadonlySet<ApiScope>;
}

export const TOKENS_VARIABLE = 'XSB_API_TOKENS';
const MIN_TOKEN_LENGTH = 16;

// The one-shot hash: a request's token is hashed on every request, and a Hash object costs more.
const sha256 = (value: string) => hash('sha256', value, 'buffer');

// Errors about an entry name its position and the rule it breaks, never any part of it: an entry whose
// fields were swapped holds the secret where the name or the scopes should be.
function parseScopes(text: string, where: string): Set<ApiScope> {
  const scopes = text.split('+').map((scope) => scope.trim());
  const unknown = scopes.filter((scope) => !API_SCOPES.includes(scope as ApiScope));
  if (scopes.length === 0 || unknown.length > 0)
    throw new ConfigError(
      `${where}: the third field (scopes) must be ${API_SCOPES.join(', ')} joined by "+"`,
    );
  return new Set(scopes as ApiScope[]);
}

function checkName(name: string, where: string): string {
  if (!portableNameSchema.safeParse(name).success)
    throw new ConfigError(
      `${where}: the first field (name) must be a portable name ([A-Za-z0-9._-], no "..", at most 200 characters)`,
    );
  return name;
}

/** `XSB_API_TOKENS`: comma-separated `name:token:scopes` entries, scopes joined by `+`. */
export function parseTokenList(text: string | undefined): ApiToken[] {
  if (!text || text.trim() === '') return [];
  return text.split(',').map((entry, index) => {
    const parts = entry.trim().split(':');
    const where = `${TOKENS_VARIABLE} entry ${index + 1}`;
    if (parts.length !== 3)
      throw new ConfigError(`${where}: expected name:token:scopes (the token may not hold ":" or ",")`);
    const [name, token, scopes] = parts as [string, string, string];
    checkName(name, where);
    if (token.length < MIN_TOKEN_LENGTH)
      throw new ConfigError(
        `${where}: the second field (token) is shorter than ${MIN_TOKEN_LENGTH} characters`,
      );
    return { name, sha256: sha256(token), scopes: parseScopes(scopes, where) };
  });
}

/** Config `api.tokens`: entries that hold the token's sha256 only, so no config file holds a secret. */
export function tokensFromConfig(
  entries: ReadonlyArray<{ name: string; sha256: string; scopes: readonly ApiScope[] }>,
): ApiToken[] {
  return entries.map((entry, index) => ({
    name: checkName(entry.name, `config api.tokens[${index}]`),
    sha256: Buffer.from(entry.sha256, 'hex'),
    scopes: new Set(entry.scopes),
  }));
}

/** Every configured token, environment first; a name used twice is a configuration error. */
export function mergeTokens(...lists: ApiToken[][]): ApiToken[] {
  const all = lists.flat();
  const seen = new Set<string>();
  for (const token of all) {
    if (seen.has(token.name)) throw new ConfigError(`API token name "${token.name}" is configured twice`);
    seen.add(token.name);
  }
  return all;
}

/** The token a `Bearer` header presents: compared with every hash, no early exit, so the time leaks no match. */
export function authenticate(header: string | undefined, tokens: readonly ApiToken[]): ApiToken | undefined {
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!match) return undefined;
  const presented = sha256(match[1]!);
  let found: ApiToken | undefined;
  for (const token of tokens) {
    if (timingSafeEqual(presented, token.sha256) && !found) found = token;
  }
  return found;
}

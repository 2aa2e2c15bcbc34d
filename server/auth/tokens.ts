/**
 * Bearer tokens (CONTRACT section 10). The file stores only SHA-256 hashes; a presented token is hashed
 * and compared to every stored hash in constant time, so timing reveals neither a token nor a prefix.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';

export type Role = 'viewer' | 'user' | 'admin';
const ROLES: readonly Role[] = ['viewer', 'user', 'admin'];

/** Who is calling; `anonymous` with every role when no tokens file is configured. */
export interface Principal {
  user: string;
  roles: Role[];
}

export const ANONYMOUS: Principal = { user: 'anonymous', roles: [...ROLES] };

/** The tokens file cannot be used. */
export class TokensError extends Error {
  override name = 'TokensError';
}

interface Entry {
  user: string;
  roles: Role[];
  hash: Buffer;
}

/** Resolves `Authorization` headers to principals. */
export class TokenStore {
  private constructor(private readonly entries: Entry[]) {}

  /** Builds a store from the tokens file's YAML text; `file` is only used in messages. */
  static parse(text: string, file: string): TokenStore {
    let doc: unknown;
    try {
      doc = parse(text);
    } catch (error) {
      throw new TokensError(`${file}: not valid YAML: ${(error as Error).message.split('\n')[0]}`);
    }
    const list = (doc as { tokens?: unknown } | null)?.tokens;
    if (!Array.isArray(list)) throw new TokensError(`${file}: expected "tokens:" with a list of entries.`);
    const entries = list.map((raw: unknown, i): Entry => {
      const item = (raw ?? {}) as Record<string, unknown>;
      const where = `${file}: tokens[${i}]`;
      if (typeof item.user !== 'string' || item.user === '')
        throw new TokensError(`${where}: "user" must be text.`);
      const roles = item.roles;
      if (!Array.isArray(roles) || roles.length === 0 || !roles.every((r) => ROLES.includes(r as Role))) {
        throw new TokensError(`${where}: "roles" must list some of ${ROLES.join(', ')}.`);
      }
      const hex = item.token_sha256;
      if (typeof hex !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hex)) {
        throw new TokensError(
          `${where}: "token_sha256" must be 64 hexadecimal digits (the SHA-256 of the token).`,
        );
      }
      return { user: item.user, roles: roles as Role[], hash: Buffer.from(hex, 'hex') };
    });
    return new TokenStore(entries);
  }

  static async load(file: string): Promise<TokenStore> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new TokensError(
        `${file}: cannot read the tokens file (${(error as NodeJS.ErrnoException).code}).`,
      );
    }
    return TokenStore.parse(text, file);
  }

  /** The principal of a `Bearer <token>` header, or null when it is missing, malformed or unknown. */
  authenticate(header: string | undefined): Principal | null {
    const match = /^Bearer\s+(\S{1,4096})\s*$/i.exec(header ?? '');
    if (!match?.[1]) return null;
    const hash = createHash('sha256').update(match[1]).digest();
    let found: Entry | undefined;
    // Compare against every entry, without stopping early, so the time taken does not depend on which matched.
    for (const entry of this.entries) {
      if (timingSafeEqual(entry.hash, hash) && !found) found = entry;
    }
    return found ? { user: found.user, roles: [...found.roles] } : null;
  }
}

/** SHA-256 of a token in hex, as stored in the tokens file. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** Whether the principal may use sessions at all (create, read, list and end its own). */
export function canUseSessions(principal: Principal): boolean {
  return principal.roles.includes('user') || principal.roles.includes('admin');
}

export function isAdmin(principal: Principal): boolean {
  return principal.roles.includes('admin');
}

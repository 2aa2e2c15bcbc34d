/**
 * The Xauthority file of a private display: one MIT-MAGIC-COOKIE-1 entry, written for Xvfb (-auth) and read back
 * by each client of the display, which is given its cookie rather than an XAUTHORITY variable.
 */
import { readFileSync } from 'node:fs';

/** One Xauthority entry for any address and display (FamilyWild), as `xauth add . <key>` writes. */
export function xauthority(cookie: Buffer): Buffer {
  const field = (data: Buffer) => {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(data.length);
    return Buffer.concat([length, data]);
  };
  const family = Buffer.from([0xff, 0xff]);
  const empty = Buffer.alloc(0);
  return Buffer.concat([
    family,
    field(empty),
    field(empty),
    field(Buffer.from('MIT-MAGIC-COOKIE-1')),
    field(cookie),
  ]);
}

/**
 * The cookie of an Xauthority file's first entry, as the x11 package's `auth` option takes it: a client
 * given it reads no XAUTHORITY variable and no ~/.Xauthority.
 */
export function cookieOf(authFile: string): { name: string; data: string } {
  const file = readFileSync(authFile);
  const fields: string[] = [];
  for (let at = 2; fields.length < 4;) {
    if (at + 2 > file.length) throw new Error(`${authFile} is not an Xauthority file.`);
    const length = file.readUInt16BE(at);
    fields.push(file.toString('latin1', at + 2, at + 2 + length));
    at += 2 + length;
  }
  return { name: fields[2] as string, data: fields[3] as string };
}

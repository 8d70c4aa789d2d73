// RFC 4122 version-5 (SHA-1, name-based) UUIDs, the same ids as the `uuid` package's v5, for the
// engine's hot paths: every slave order, copy outcome and venue change derives one. `uuid`'s v5
// parses the namespace and converts the name byte by byte on every call; this keeps each namespace's
// bytes and hashes the name as UTF-8 through node:crypto, several times faster
// (test/domain/uuidV5.unit.spec.ts holds both to the same answers). A hand-written SHA-1 was tried
// (0.3-0.6 of createHash per id under load) and taken back: hashing is a solved problem, so a library
// does it; @noble/hashes, pure JavaScript, measured 2-3 times slower than createHash here. A name
// that fits is written after the namespace bytes into one buffer kept for it and hashed by the
// one-shot crypto.hash (no Hash object, no second update): 0.6 of createHash's CPU per id.
import { createHash, hash } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const namespaces = new Map<string, Buffer>();

const namespaceBytes = (namespace: string): Buffer => {
  let bytes = namespaces.get(namespace);
  if (!bytes) {
    if (!UUID.test(namespace)) throw new TypeError(`not a UUID namespace: ${namespace}`);
    bytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
    namespaces.set(namespace, bytes);
  }
  return bytes;
};

/** The namespace's 16 bytes, then the name's UTF-8: rewritten by every id whose name fits. */
const scratch = Buffer.allocUnsafe(1024);
/** Names of at most this many UTF-16 units fit: each takes 3 UTF-8 bytes at most (a surrogate pair 4 for 2). */
const SCRATCH_NAME_UNITS = Math.floor((scratch.length - 16) / 3);

const sha1 = (name: string, namespace: Buffer): Buffer => {
  if (name.length > SCRATCH_NAME_UNITS) return createHash('sha1').update(namespace).update(name, 'utf8').digest();
  namespace.copy(scratch, 0);
  const written = scratch.write(name, 16, 'utf8');
  return hash('sha1', scratch.subarray(0, 16 + written), 'buffer');
};

/** The version-5 UUID of `name` in `namespace` (lower-case, as `uuid`'s v5 answers it). */
export const uuidV5 = (name: string, namespace: string): string => {
  const digest = sha1(name, namespaceBytes(namespace));
  digest[6] = (digest[6]! & 0x0f) | 0x50;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

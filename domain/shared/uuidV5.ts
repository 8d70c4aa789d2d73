// RFC 4122 version-5 (SHA-1, name-based) UUIDs, the same ids as the `uuid` package's v5, for the
// engine's hot paths: every slave order, copy outcome and venue change derives one. `uuid`'s v5
// parses the namespace and converts the name byte by byte on every call; this keeps each namespace's
// bytes and hashes the name as UTF-8 through node:crypto, several times faster
// (test/domain/uuidV5.unit.spec.ts holds both to the same answers). A hand-written SHA-1 was tried
// (0.3-0.6 of createHash per id under load) and taken back: hashing is a solved problem, so a library
// does it; @noble/hashes, pure JavaScript, measured 2-3 times slower than createHash here.
import { createHash } from 'node:crypto';

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

/** The version-5 UUID of `name` in `namespace` (lower-case, as `uuid`'s v5 answers it). */
export const uuidV5 = (name: string, namespace: string): string => {
  const hash = createHash('sha1').update(namespaceBytes(namespace)).update(name, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
};

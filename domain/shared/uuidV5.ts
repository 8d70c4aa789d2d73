// RFC 4122 version-5 (SHA-1, name-based) UUIDs, the same ids as the `uuid` package's v5, for the
// engine's hot paths: every slave order, copy outcome and venue change derives one. `uuid`'s v5
// parses the namespace and converts the name byte by byte on every call, and node:crypto's
// createHash costs a native hash object per id (4–12 µs under load); names here are one or two
// SHA-1 blocks, so this hashes them in plain JavaScript into buffers kept between calls (about a
// fifth of createHash's time). test/domain/uuidV5.unit.spec.ts holds it to `uuid`'s answers.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const namespaces = new Map<string, Uint8Array>();

const namespaceBytes = (namespace: string): Uint8Array => {
  let bytes = namespaces.get(namespace);
  if (!bytes) {
    if (!UUID.test(namespace)) throw new TypeError(`not a UUID namespace: ${namespace}`);
    bytes = Uint8Array.from(Buffer.from(namespace.replace(/-/g, ''), 'hex'));
    namespaces.set(namespace, bytes);
  }
  return bytes;
};

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
const hex8 = (word: number): string => HEX[word >>> 24]! + HEX[(word >>> 16) & 0xff]! + HEX[(word >>> 8) & 0xff]! + HEX[word & 0xff]!;
const utf8 = new TextEncoder();
const words = new Int32Array(80);
/** The namespace, the name and SHA-1's padding; grown for a longer name, never shrunk. */
let message = new Uint8Array(256);

/** Namespace then name (UTF-8) into `message`, padded to whole 64-byte blocks with the bit length; answers the padded length. */
const fill = (name: string, namespace: Uint8Array): number => {
  const most = 16 + name.length * 3 + 72;
  if (message.length < most) message = new Uint8Array(most * 2);
  message.set(namespace, 0);
  let length = 16;
  for (let i = 0; i < name.length; i++) {
    const code = name.charCodeAt(i);
    if (code > 0x7f) {
      length = 16 + utf8.encodeInto(name, message.subarray(16)).written;
      break;
    }
    message[length++] = code;
  }
  const padded = (((length + 8) >> 6) + 1) << 6;
  message[length] = 0x80;
  message.fill(0, length + 1, padded);
  const bits = length * 8;
  const high = Math.floor(bits / 0x1_0000_0000);
  message[padded - 8] = high >>> 24;
  message[padded - 7] = high >>> 16;
  message[padded - 6] = high >>> 8;
  message[padded - 5] = high;
  message[padded - 4] = bits >>> 24;
  message[padded - 3] = bits >>> 16;
  message[padded - 2] = bits >>> 8;
  message[padded - 1] = bits;
  return padded;
};

/** The version-5 UUID of `name` in `namespace` (lower-case, as `uuid`'s v5 answers it). */
export const uuidV5 = (name: string, namespace: string): string => {
  const padded = fill(name, namespaceBytes(namespace));
  let h0 = 0x67452301;
  let h1 = 0xefcdab89 | 0;
  let h2 = 0x98badcfe | 0;
  let h3 = 0x10325476;
  let h4 = 0xc3d2e1f0 | 0;
  for (let offset = 0; offset < padded; offset += 64) {
    for (let i = 0; i < 16; i++) {
      const j = offset + i * 4;
      words[i] = (message[j]! << 24) | (message[j + 1]! << 16) | (message[j + 2]! << 8) | message[j + 3]!;
    }
    for (let i = 16; i < 80; i++) {
      const x = words[i - 3]! ^ words[i - 8]! ^ words[i - 14]! ^ words[i - 16]!;
      words[i] = (x << 1) | (x >>> 31);
    }
    let a = h0;
    let b = h1;
    let c = h2;
    let d = h3;
    let e = h4;
    for (let i = 0; i < 80; i++) {
      let f: number;
      let k: number;
      if (i < 20) {
        f = (b & c) | (~b & d);
        k = 0x5a827999;
      } else if (i < 40) {
        f = b ^ c ^ d;
        k = 0x6ed9eba1;
      } else if (i < 60) {
        f = (b & c) | (b & d) | (c & d);
        k = 0x8f1bbcdc | 0;
      } else {
        f = b ^ c ^ d;
        k = 0xca62c1d6 | 0;
      }
      const t = (((a << 5) | (a >>> 27)) + f + e + k + words[i]!) | 0;
      e = d;
      d = c;
      c = (b << 30) | (b >>> 2);
      b = a;
      a = t;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
    h4 = (h4 + e) | 0;
  }
  // The version (5) in byte 6's high nibble, the variant (10) in byte 8's two high bits.
  const timeHigh = hex8((h1 & 0xffff0fff) | 0x5000);
  const clock = hex8((h2 & 0x3fffffff) | 0x80000000);
  return `${hex8(h0)}-${timeHigh.slice(0, 4)}-${timeHigh.slice(4)}-${clock.slice(0, 4)}-${clock.slice(4)}${hex8(h3)}`;
};

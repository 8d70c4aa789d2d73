// A signal provider's logo (spec "Limits": square, Base64, at most 256 KB). The image is read as sent:
// Base64, with or without a `data:image/...;base64,` prefix. Its size is the decoded image's (at most
// 262,144 bytes); its width and height are read from the image itself (a PNG's IHDR chunk, a JPEG's
// start-of-frame segment), so a square claimed by a wrong file name or prefix is not believed. Other
// image formats are refused: their dimensions are not checked here.

export const MAX_LOGO_BYTES = 256 * 1024;
/** The Base64 text of the largest logo, and room for a data URI prefix. */
export const MAX_LOGO_TEXT = Math.ceil(MAX_LOGO_BYTES / 3) * 4 + 64;

const DATA_URI = /^data:image\/[a-z0-9.+-]+;base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface ImageSize {
  readonly format: 'PNG' | 'JPEG';
  readonly width: number;
  readonly height: number;
}

const pngSize = (bytes: Uint8Array): ImageSize | null => {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (bytes.length < 24 || signature.some((b, i) => bytes[i] !== b)) return null;
  // The first chunk is IHDR: length (4), "IHDR" (4), width (4), height (4), big-endian.
  if (String.fromCharCode(...bytes.subarray(12, 16)) !== 'IHDR') return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { format: 'PNG', width: view.getUint32(16), height: view.getUint32(20) };
};

/** Start-of-frame markers (C0 to CF but C4 DHT, C8 JPG, CC DAC) carry the frame's height and width. */
const isStartOfFrame = (marker: number): boolean => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

const jpegSize = (bytes: Uint8Array): ImageSize | null => {
  if (bytes.length < 4 || bytes[0] !== 0xff || bytes[1] !== 0xd8) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      at += 2; // markers without a length
      continue;
    }
    const length = view.getUint16(at + 2);
    if (isStartOfFrame(marker)) {
      if (at + 9 > bytes.length) return null;
      return { format: 'JPEG', height: view.getUint16(at + 5), width: view.getUint16(at + 7) };
    }
    if (marker === 0xd9 || marker === 0xda || length < 2) return null; // end or scan data before any frame
    at += 2 + length;
  }
  return null;
};

/** The image's decoded bytes, or null when the text is not Base64. */
export const logoBytes = (text: string): Uint8Array | null => {
  const body = text.replace(DATA_URI, '').replace(/\s+/g, '');
  if (body.length === 0 || body.length % 4 !== 0 || !BASE64.test(body)) return null;
  return Uint8Array.from(Buffer.from(body, 'base64'));
};

/** What is wrong with a logo in words, or null when it is a square PNG or JPEG of at most 256 KB. */
export const logoProblem = (text: string): string | null => {
  const bytes = logoBytes(text);
  if (!bytes) return 'logo: not Base64 (a data:image/...;base64, prefix may precede it)';
  if (bytes.length > MAX_LOGO_BYTES) return `logo: ${bytes.length} bytes; at most ${MAX_LOGO_BYTES} (256 KB)`;
  const size = pngSize(bytes) ?? jpegSize(bytes);
  if (!size) return 'logo: not a PNG or JPEG image (only those are read for their size)';
  if (size.width === 0 || size.height === 0) return `logo: a ${size.format} of ${size.width}x${size.height} pixels`;
  if (size.width !== size.height) return `logo: must be square; this ${size.format} is ${size.width}x${size.height} pixels`;
  return null;
};

// Broker passwords are kept only as AES-256-GCM ciphertext (in events and everywhere else). The key comes
// from CREDENTIALS_KEY (base64, 32 bytes) or is generated once into DATA_DIR/credentials.key.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface CredentialCipher {
  encrypt(plain: string): string;
  decrypt(ciphertext: string): string;
}

export const loadCredentialKey = (configured: string | null, dataDir: string): Buffer => {
  if (configured) {
    const key = Buffer.from(configured, 'base64');
    if (key.length !== 32) throw new Error('CREDENTIALS_KEY must be 32 bytes, base64-encoded');
    return key;
  }
  const file = path.join(dataDir, 'credentials.key');
  if (existsSync(file)) {
    // Only the service's user may read it, whatever mode an older version left it with.
    chmodSync(file, 0o600);
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64'), { mode: 0o600 });
  return key;
};

export const credentialCipher = (key: Buffer): CredentialCipher => ({
  encrypt(plain) {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  },
  decrypt(ciphertext) {
    const raw = Buffer.from(ciphertext.replace(/^v1:/, ''), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  },
});

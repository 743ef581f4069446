import { createCipheriv } from 'node:crypto';
import { SMARTY_AUTHENTICATION_KEY } from '../../../src/meter/dsmr/encryption.js';

export const SMARTY_SYSTEM_TITLE = Buffer.from('5341473130333037', 'hex');

/**
 * Encrypts a plain telegram as a Luxembourg Smarty meter sends it: general-glo-ciphering APDU,
 * AES-128-GCM with IV = system title + frame counter, AAD = 0x30 + authentication key, 12-byte tag.
 */
export function encryptSmarty(plain: Buffer, keyHex: string, frameCounter: number): Buffer {
  const counter = Buffer.alloc(4);
  counter.writeUInt32BE(frameCounter);
  const iv = Buffer.concat([SMARTY_SYSTEM_TITLE, counter]);
  const cipher = createCipheriv('aes-128-gcm', Buffer.from(keyHex, 'hex'), iv, { authTagLength: 12 });
  cipher.setAAD(Buffer.concat([Buffer.of(0x30), SMARTY_AUTHENTICATION_KEY]));
  const ciphertext = Buffer.concat([cipher.update(plain), cipher.final()]);
  const length = 1 + 4 + ciphertext.length + 12;
  const header = Buffer.from([0xdb, 0x08, ...SMARTY_SYSTEM_TITLE, 0x82, length >> 8, length & 0xff, 0x30]);
  return Buffer.concat([header, counter, ciphertext, cipher.getAuthTag()]);
}

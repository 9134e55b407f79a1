import { BadRequestException, PayloadTooLargeException } from '@nestjs/common';
import { say, sizeInBytes } from '../common';

/** The most files one message may carry. */
export const MAX_ATTACHMENTS = 10;

/** A file a message brings, before it is checked and stored: from a data URL or a multipart part. */
export interface AttachmentUpload {
  name: string;
  bytes: Buffer;
  /** the type the client declared (data URL, part header): a hint, never trusted (file-sniff.ts) */
  declaredType?: string;
}

const DATA_URL = /^data:([^,;]*)((?:;[^,;]*)*?);base64,/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes `base64` decodes to, without decoding it. */
const decodedLength = (base64: string) => Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);

/**
 * A `data:<type>;base64,<data>` attachment as an upload: 400 naming it when the URL is not one,
 * 413 before decoding when its bytes would pass `maxBytes`.
 */
export function fromDataUrl(name: string, dataUrl: string, maxBytes: number): AttachmentUpload {
  const head = DATA_URL.exec(dataUrl);
  if (!head) throw new BadRequestException(say('attachment.bad_data_url', { name }));
  const base64 = dataUrl.slice(head[0].length).replace(/\s+/g, '');
  if (base64.length % 4 !== 0 || !BASE64.test(base64)) throw new BadRequestException(say('attachment.bad_data_url', { name }));
  const size = decodedLength(base64);
  if (size > maxBytes) throw tooLarge(name, size, maxBytes);
  return { name, bytes: Buffer.from(base64, 'base64'), declaredType: head[1] };
}

export const tooLarge = (name: string, size: number, max: number) => new PayloadTooLargeException(say('attachment.too_large', { name, size, max }));

/** A file's name as given, if it is one: no path, no control characters, 1 to 255 characters. */
// eslint-disable-next-line no-control-regex -- control characters are what it refuses
const BAD_NAME = /[\u0000-\u001f\u007f/\\]/;
export function checkName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed || trimmed.length > 255 || BAD_NAME.test(trimmed) || trimmed === '.' || trimmed === '..') {
    throw new BadRequestException(say('attachment.bad_name', { name: JSON.stringify(name.slice(0, 80)) }));
  }
  return trimmed;
}

/**
 * The JSON body limit of POST …/messages: the usual body and, on top, the base64 of as many
 * attachments as a message may carry, each at its largest (base64 takes 4 bytes for 3).
 */
export function messageBodyLimit(bodyLimit: string, maxAttachmentBytes: number): number {
  return sizeInBytes(bodyLimit) + MAX_ATTACHMENTS * (Math.ceil(maxAttachmentBytes / 3) * 4 + 1024);
}

import { createHash } from 'node:crypto';
import { BadRequestException, Injectable, NotFoundException, UnsupportedMediaTypeException } from '@nestjs/common';
import { say } from '../common';
import { AppConfig } from '../config';
import type { AuthContext } from '../security';
import { FileRepository, type StoredFileWithBytes } from './file-repository';
import { sniffAttachment, SUPPORTED_ATTACHMENTS } from './file-sniff';
import { type AttachmentUpload, checkName, MAX_ATTACHMENTS, tooLarge } from './file-uploads';
import type { AttachmentRef } from './message-parts';

/**
 * A message's uploads, checked: what they are, and how to store them. Stored only once nothing
 * else refuses the message (an image for a model that cannot see), so a refusal stores nothing.
 */
export interface AttachmentBatch {
  readonly files: ReadonlyArray<{ name: string; mediaType: string }>;
  store(): Promise<AttachmentRef[]>;
}

/** A checked upload, ready to be stored. */
interface Accepted {
  name: string;
  bytes: Buffer;
  mediaType: string;
}

/**
 * Attachments: checked (count, size, name, type sniffed from the bytes) and stored once per
 * workspace before the message that references them; served back to the workspace's members.
 */
@Injectable()
export class FileService {
  constructor(
    private readonly files: FileRepository,
    private readonly config: AppConfig,
  ) {}

  /**
   * Checks every upload (none is stored yet): undefined when there are none. The batch stores
   * them when its `store` is called, each once per workspace (the same bytes are one row), and
   * answers the references the message will carry, in order.
   */
  prepare(auth: AuthContext, uploads: readonly AttachmentUpload[]): AttachmentBatch | undefined {
    if (!uploads.length) return undefined;
    if (uploads.length > MAX_ATTACHMENTS) throw new BadRequestException(say('attachment.too_many', { max: MAX_ATTACHMENTS }));
    const accepted = uploads.map((upload) => this.check(upload));
    return { files: accepted.map(({ name, mediaType }) => ({ name, mediaType })), store: () => this.store(auth, accepted) };
  }

  private async store(auth: AuthContext, accepted: readonly Accepted[]): Promise<AttachmentRef[]> {
    const refs: AttachmentRef[] = [];
    for (const file of accepted) {
      const sha256 = createHash('sha256').update(file.bytes).digest('hex');
      const stored = await this.files.insert({ workspaceId: auth.workspaceId, sha256, mediaType: file.mediaType, bytes: file.bytes });
      // the type this attachment was sniffed as: the same text bytes under another name may be another kind
      refs.push({ fileId: stored.id, name: file.name, mediaType: file.mediaType, size: stored.size });
    }
    return refs;
  }

  /** The file, if it is the caller's workspace's (404 otherwise, as for one that never existed). */
  async get(auth: AuthContext, id: string): Promise<StoredFileWithBytes> {
    const file = await this.files.find(auth.workspaceId, id);
    if (!file) throw new NotFoundException(say('file.not_found', { id }));
    return file;
  }

  private check(upload: AttachmentUpload): Accepted {
    const name = checkName(upload.name);
    const max = this.config.HELIX_MAX_ATTACHMENT_BYTES;
    if (upload.bytes.length > max) throw tooLarge(name, upload.bytes.length, max);
    if (!upload.bytes.length) throw new BadRequestException(say('attachment.empty', { name }));
    const sniffed = sniffAttachment(upload.bytes, name, upload.declaredType);
    if (sniffed.kind === 'refused') {
      throw new UnsupportedMediaTypeException(
        sniffed.reason === 'spoofed' ? say('attachment.spoofed', { name }) : say('attachment.unsupported_type', { name, supported: SUPPORTED_ATTACHMENTS }),
      );
    }
    return { name, bytes: upload.bytes, mediaType: sniffed.mediaType };
  }
}

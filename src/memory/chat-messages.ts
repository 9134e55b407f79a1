import type { AttachmentContent, AttachmentRef, MessageRecord } from '../conversation';
import type { ChatImage, ChatMessage } from '../model';

/** The attachments' contents a window was given, by file id (AttachmentContents.load). */
export type LoadedAttachments = ReadonlyMap<string, AttachmentContent>;

/**
 * A stored message as the model sees it; undefined for what is never sent back (partial answers).
 * A user message's attachments come with it: images as images, text files (and a PDF's text) as
 * context after its text. Without `attachments` (a summary's transcript) they are named only.
 */
export function toChatMessage(message: MessageRecord, attachments?: LoadedAttachments): ChatMessage | undefined {
  const parts = message.parts;
  switch (parts.kind) {
    case 'user':
      if (message.role === 'system') return { role: 'system', content: message.content };
      return parts.attachments?.length ? withAttachments(message.content, parts.attachments, attachments) : { role: 'user', content: message.content };
    case 'answer':
      return { role: 'assistant', content: message.content, ...(parts.toolCalls?.length && { toolCalls: parts.toolCalls }) };
    case 'failure':
      return { role: 'assistant', content: message.content };
    case 'output_repair':
      // Helix's request to correct an answer: a user turn is what every provider accepts after an answer
      return { role: 'user', content: message.content };
    case 'tool_result':
      return { role: 'tool', toolCallId: message.toolCallId ?? '', content: message.content };
    case 'partial':
      // a partial answer (cancelled, or cut by a restart) is the user's record, not context
      return undefined;
  }
}

/** The file ids a window needs (of the messages it may show). */
export function attachmentsOf(records: readonly MessageRecord[]): AttachmentRef[] {
  return records.flatMap((record) => (record.parts.kind === 'user' ? (record.parts.attachments ?? []) : []));
}

function withAttachments(text: string, refs: readonly AttachmentRef[], loaded: LoadedAttachments | undefined): ChatMessage {
  const images: ChatImage[] = [];
  const blocks = [text];
  for (const ref of refs) {
    const content = loaded?.get(ref.fileId);
    if (!content) blocks.push(`[Attached file \`${ref.name}\` (${ref.mediaType}, ${ref.size} bytes)]`);
    else if (content.kind === 'image') images.push({ mediaType: content.mediaType, data: content.data });
    else if (content.kind === 'text') blocks.push(`Attached file \`${ref.name}\`:\n${content.text}`);
    else blocks.push(`[Attached file \`${ref.name}\` (${ref.mediaType}) could not be given to you: ${content.reason}]`);
  }
  return { role: 'user', content: blocks.join('\n\n'), ...(images.length && { images }) };
}

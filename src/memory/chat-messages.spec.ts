import type { AttachmentContent, AttachmentRef, MessageRecord } from '../conversation';
import { attachmentsOf, toChatMessage } from './chat-messages';
import { IMAGE_TOKENS, MESSAGE_OVERHEAD, TokenCounter } from './token-counter';

const ref = (fileId: string, name: string, mediaType: string, size = 10): AttachmentRef => ({ fileId, name, mediaType, size });
const userMessage = (content: string, attachments?: AttachmentRef[]): MessageRecord => ({
  id: 'msg_1', conversationId: 'conv_1', runId: null, seq: 1, role: 'user', content,
  parts: { kind: 'user', ...(attachments && { attachments }) }, toolCallId: null, createdAt: new Date(0),
});

describe("toChatMessage: a user message's attachments", () => {
  const refs = [ref('f1', 'dot.png', 'image/png'), ref('f2', 'notes.md', 'text/markdown'), ref('f3', 'scan.pdf', 'application/pdf'), ref('f4', 'gone.txt', 'text/plain')];
  const loaded = new Map<string, AttachmentContent>([
    ['f1', { kind: 'image', mediaType: 'image/png', data: 'iVBORw0=', size: 5 }],
    ['f2', { kind: 'text', text: '# Notes\nherons' }],
    ['f3', { kind: 'unreadable', reason: 'the PDF has no text (a scan?)' }],
  ]);

  it('images become images, text files context after the text with their names; what cannot be given is named with why', () => {
    expect(toChatMessage(userMessage('Look', refs), loaded)).toEqual({
      role: 'user',
      content: [
        'Look',
        'Attached file `notes.md`:\n# Notes\nherons',
        '[Attached file `scan.pdf` (application/pdf) could not be given to you: the PDF has no text (a scan?)]',
        '[Attached file `gone.txt` (text/plain, 10 bytes)]',
      ].join('\n\n'),
      images: [{ mediaType: 'image/png', data: 'iVBORw0=' }],
    });
  });

  it('without loaded contents (a summary transcript) the files are named only; a message without any is plain', () => {
    expect(toChatMessage(userMessage('Look', refs.slice(0, 1)))).toEqual({ role: 'user', content: 'Look\n\n[Attached file `dot.png` (image/png, 10 bytes)]' });
    expect(toChatMessage(userMessage('Hi'))).toEqual({ role: 'user', content: 'Hi' });
  });

  it('lists the attachments of user messages only, in order', () => {
    expect(attachmentsOf([userMessage('a', refs.slice(0, 2)), userMessage('b'), userMessage('c', refs.slice(3))]).map((r) => r.fileId)).toEqual(['f1', 'f2', 'f4']);
  });

  it('an image costs a fixed number of tokens', () => {
    const counter = new TokenCounter();
    const plain = counter.message({ role: 'user', content: 'Look' }, 'estimate');
    expect(plain).toBe(MESSAGE_OVERHEAD + 1);
    expect(counter.message({ role: 'user', content: 'Look', images: [{ mediaType: 'image/png', data: 'x' }, { mediaType: 'image/png', data: 'y' }] }, 'estimate')).toBe(plain + 2 * IMAGE_TOKENS);
  });
});

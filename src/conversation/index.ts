/** The public face of src/conversation: what other modules may import from it. */
export { MessageResponse } from './conversation.dto';
export { ConversationModule } from './conversation.module';
export type { ImportedMessage, MessageRecord, NewMessage } from './conversation.records';
export { lastSeqOfConversation } from './conversation.repository';
export { ConversationService } from './conversation.service';
export type { ConversationDraft } from './conversation.service';
export { toMessageView } from './conversation.view';
export type { MessageView } from './conversation.view';
export type { StoredToolCall } from './message-parts';
export { AttachmentContents } from './file-contents';
export type { AttachmentContent } from './file-contents';
export { type AttachmentBatch, FileService } from './file-service';
export { isImageType } from './file-sniff';
export { type AttachmentUpload, fromDataUrl, MAX_ATTACHMENTS, messageBodyLimit } from './file-uploads';
export type { AttachmentRef } from './message-parts';

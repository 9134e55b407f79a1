import type { CatalogueEntry } from './entry';

/** Attachments of messages and the files they are stored as (src/conversation/file-*.ts). */
export const FILE_TEXTS = {
  'file.not_found': { en: 'File {id} not found', zh: '找不到文件 {id}' },
  'workdir.file_not_found': { en: 'No file {path} in conversation {id}', zh: '会话 {id} 中没有文件 {path}' },
  'attachment.too_many': { en: 'attachments: at most {max} files may be attached to one message', zh: 'attachments：一条消息最多只能附加 {max} 个文件' },
  'attachment.too_large': {
    en: 'attachments: {name} is {size} bytes; the limit is {max} bytes (HELIX_MAX_ATTACHMENT_BYTES)',
    zh: 'attachments：{name} 有 {size} 字节；上限是 {max} 字节（HELIX_MAX_ATTACHMENT_BYTES）',
  },
  'attachment.upload_too_large': {
    en: 'attachments: a file of the form field {field} is larger than {max} bytes (HELIX_MAX_ATTACHMENT_BYTES)',
    zh: 'attachments：表单字段 {field} 中的文件超过了 {max} 字节（HELIX_MAX_ATTACHMENT_BYTES）',
  },
  'attachment.empty': { en: 'attachments: {name} is empty', zh: 'attachments：{name} 是空文件' },
  'attachment.bad_data_url': {
    en: 'attachments: the dataUrl of {name} must be data:<media type>;base64,<the bytes in base64>',
    zh: 'attachments：{name} 的 dataUrl 必须是 data:<媒体类型>;base64,<base64 编码的内容>',
  },
  'attachment.bad_name': {
    en: 'attachments: a file name must be 1 to 255 characters, without a path or control characters (got {name})',
    zh: 'attachments：文件名须为 1 到 255 个字符，不能含路径或控制字符（收到的是 {name}）',
  },
  'attachment.spoofed': {
    en: 'attachments: {name} is refused: its content is not what its name or declared type says',
    zh: 'attachments：{name} 被拒绝：其内容与文件名或声明的类型不符',
  },
  'attachment.unsupported_type': {
    en: 'attachments: {name} is not a supported kind of file ({supported})',
    zh: 'attachments：{name} 不是受支持的文件类型（{supported}）',
  },
  'attachment.no_vision': {
    en: 'attachments: the model {model} cannot see images, so {name} cannot be sent to it; choose a model that can (a model config with vision: true)',
    zh: 'attachments：模型 {model} 无法查看图片，因此不能把 {name} 发给它；请选择能查看图片的模型（模型配置中 vision: true）',
  },
  'attachment.form_field_json': {
    en: '{field} must be JSON in a multipart body',
    zh: '在 multipart 请求体中 {field} 必须是 JSON',
  },
} as const satisfies Record<string, CatalogueEntry>;

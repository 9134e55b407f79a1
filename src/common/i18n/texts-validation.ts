import type { CatalogueEntry } from './entry';

/**
 * The lines of a 400 from request validation (http-errors.ts `describeValidationErrors`), each
 * naming its field (`settings.maxSteps must not be greater than 100`). Most are class-validator's
 * own default messages, declared here as it writes them so a line is translated by its template;
 * a decorator's custom message not listed stays English.
 */
export const VALIDATION_TEXTS = {
  'validation.is_string': { en: '{field} must be a string', zh: '{field} 必须是字符串' },
  'validation.is_int': { en: '{field} must be an integer number', zh: '{field} 必须是整数' },
  'validation.is_number': { en: '{field} must be a number conforming to the specified constraints', zh: '{field} 必须是符合要求的数字' },
  'validation.is_boolean': { en: '{field} must be a boolean value', zh: '{field} 必须是布尔值' },
  'validation.is_object': { en: '{field} must be an object', zh: '{field} 必须是对象' },
  'validation.is_array': { en: '{field} must be an array', zh: '{field} 必须是数组' },
  'validation.is_date': { en: '{field} must be a Date instance', zh: '{field} 必须是日期' },
  'validation.is_url': { en: '{field} must be a URL address', zh: '{field} 必须是 URL 地址' },
  'validation.is_in': { en: '{field} must be one of the following values: {values}', zh: '{field} 必须是以下值之一：{values}' },
  'validation.not_empty_value': { en: '{field} should not be empty', zh: '{field} 不能为空' },
  'validation.not_empty_object': { en: '{field} must be a non-empty object', zh: '{field} 必须是非空对象' },
  'validation.max_length': { en: '{field} must be shorter than or equal to {max} characters', zh: '{field} 的长度不能超过 {max} 个字符' },
  'validation.min_length': { en: '{field} must be longer than or equal to {min} characters', zh: '{field} 的长度不能少于 {min} 个字符' },
  'validation.min': { en: '{field} must not be less than {min}', zh: '{field} 不能小于 {min}' },
  'validation.max': { en: '{field} must not be greater than {max}', zh: '{field} 不能大于 {max}' },
  'validation.array_max': { en: '{field} must contain no more than {max} elements', zh: '{field} 最多只能有 {max} 个元素' },
  'validation.array_min': { en: '{field} must contain at least {min} elements', zh: '{field} 至少要有 {min} 个元素' },
  'validation.matches': { en: '{field} must match {pattern} regular expression', zh: '{field} 必须匹配正则表达式 {pattern}' },
  'validation.nested': { en: '{field} nested property {name} must be either object or array', zh: '{field}：嵌套属性 {name} 必须是对象或数组' },
  // forbidNonWhitelisted: the path, then class-validator's "property x should not exist"
  'validation.unknown_property': { en: '{field} property {name} should not exist', zh: '{field}：不允许有属性 {name}' },
  // Helix's own checks (decorators' messages and the services' 400s naming a field)
  'validation.storable': {
    en: '{field} must not contain NUL characters or unpaired UTF-16 surrogates',
    zh: '{field} 不能包含 NUL 字符或未配对的 UTF-16 代理字符',
  },
  'validation.not_empty': { en: '{field} must not be empty', zh: '{field} 不能为空' },
  'validation.option_id': { en: 'optionId must be 1 to 64 letters, digits, `_`, `.` or `-`', zh: 'optionId 必须是 1 到 64 个字母、数字、`_`、`.` 或 `-`' },
  'validation.not_blank': { en: '{field} must contain more than white space', zh: '{field} 不能只有空白字符' },
  'validation.json_object': { en: '{field} must be a JSON object', zh: '{field} 必须是 JSON 对象' },
  'validation.flat_record': {
    en: '{field} must be an object of string, number or boolean values',
    zh: '{field} 必须是值为字符串、数字或布尔值的对象',
  },
  'validation.name_chars': { en: '{field} must be 1 to 64 letters, digits, `_` or `-`', zh: '{field} 必须是 1 到 64 个字母、数字、`_` 或 `-`' },
  'validation.message_id': { en: '{field} must be a message id (msg_…)', zh: '{field} 必须是消息 ID（msg_…）' },
  'validation.integer_range': { en: '{field} must be an integer from {min} to {max}', zh: '{field} 必须是 {min} 到 {max} 之间的整数' },
  'validation.bad_cursor': { en: '{field} is not a valid cursor', zh: '{field} 不是有效的游标' },
  'validation.positive': { en: '{field} must be greater than 0', zh: '{field} 必须大于 0' },
  'validation.response_schema': { en: '{field} is not a usable schema: {reason}', zh: '{field} 不是可用的 schema：{reason}' },
} as const satisfies Record<string, CatalogueEntry>;

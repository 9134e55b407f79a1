import { errorCode } from './error-codes';

describe('errorCode', () => {
  it('keeps an exception’s own code, then names body errors and validation, then the status', () => {
    expect(errorCode(400, { own: 'attachment_unsupported', validation: true })).toBe('attachment_unsupported');
    expect(errorCode(400, { bodyErrorType: 'entity.parse.failed' })).toBe('invalid_json');
    expect(errorCode(413, { bodyErrorType: 'entity.too.large' })).toBe('payload_too_large');
    expect(errorCode(400, { validation: true })).toBe('validation_failed');
    expect(errorCode(409, {})).toBe('conflict');
    expect(errorCode(418, {})).toBe('bad_request');
    expect(errorCode(504, {})).toBe('internal_error');
  });
});

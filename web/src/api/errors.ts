/** A failed API call: the server's `{statusCode, error, message}` or a network failure (status 0). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

interface ErrorBody {
  message?: unknown;
  code?: unknown;
}

export function errorFrom(status: number, body: unknown, fallback: string): ApiError {
  const b = (typeof body === 'object' && body !== null ? body : {}) as ErrorBody;
  const message = Array.isArray(b.message) ? b.message.join('; ') : typeof b.message === 'string' ? b.message : fallback;
  return new ApiError(status, message, typeof b.code === 'string' ? b.code : undefined);
}

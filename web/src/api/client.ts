import createClient, { type Middleware } from 'openapi-fetch';
import { ApiError, errorFrom } from './errors';
import type { paths } from './openapi';
import { session, UNAUTHORIZED_EVENT } from './session';

/** Headers every call carries: the key (when signed in) and the page's language for server texts. */
export function requestHeaders(): Record<string, string> {
  const headers: Record<string, string> = { 'Accept-Language': session.language() };
  const key = session.apiKey();
  if (key) headers.Authorization = `Bearer ${key}`;
  return headers;
}

const auth: Middleware = {
  onRequest({ request }) {
    for (const [name, value] of Object.entries(requestHeaders())) request.headers.set(name, value);
    return request;
  },
  onResponse({ response }) {
    if (response.status === 401) window.dispatchEvent(new Event(UNAUTHORIZED_EVENT));
    return response;
  },
};

/** The REST API, typed by the OpenAPI document the server publishes (api/openapi.d.ts). */
export const api = createClient<paths>({ baseUrl: '' });
api.use(auth);

interface Result<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The body of a successful call, or an ApiError carrying the server's (localised) message. */
export async function ok<T>(call: Promise<Result<T>>): Promise<T> {
  let result: Result<T>;
  try {
    result = await call;
  } catch (error) {
    throw new ApiError(0, error instanceof Error ? error.message : String(error));
  }
  if (!result.response.ok || result.data === undefined) throw errorFrom(result.response.status, result.error, result.response.statusText);
  return result.data;
}

/** A call answered with no body (204), checked the same way. */
export async function done(call: Promise<Result<unknown>>): Promise<void> {
  let result: Result<unknown>;
  try {
    result = await call;
  } catch (error) {
    throw new ApiError(0, error instanceof Error ? error.message : String(error));
  }
  if (!result.response.ok) throw errorFrom(result.response.status, result.error, result.response.statusText);
}

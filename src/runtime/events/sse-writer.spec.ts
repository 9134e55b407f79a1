import { EventEmitter } from 'node:events';
import { Logger } from '@nestjs/common';
import type { Response } from 'express';
import { Subject } from 'rxjs';
import type { RunEvent } from '../store/run-events';
import type { RunSignal } from '../store/run-observer';
import { SseWriter } from './sse-writer';

/** Just what SseWriter touches of an Express response. */
class FakeResponse extends EventEmitter {
  readonly frames: string[] = [];
  writableEnded = false;
  readonly req = { headers: {}, method: 'GET', originalUrl: '/api/v1/runs/run_1/events' };
  writeHead(): void {}
  flushHeaders(): void {}
  write(frame: string): void {
    this.frames.push(frame);
  }
  end(): void {
    this.writableEnded = true;
  }
}

const token = (seq: number): RunEvent => ({ runId: 'run_1', seq, type: 'token', data: { text: `t${seq}` }, at: new Date() });

describe('SseWriter', () => {
  beforeEach(() => jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined));
  afterEach(() => jest.restoreAllMocks());

  it('counts open streams, and reports the events fanned out once per tick', async () => {
    const signals: RunSignal[] = [];
    const writer = new SseWriter({ record: (signal) => void signals.push(signal) });
    const events = new Subject<RunEvent>();
    const clients = [new FakeResponse(), new FakeResponse(), new FakeResponse()];
    for (const client of clients) writer.stream(client as unknown as Response, events);
    expect(writer.openStreams).toBe(3);

    for (let seq = 1; seq <= 4; seq++) events.next(token(seq));
    expect(signals).toEqual([]); // nothing per event: the tick's total comes after it
    await Promise.resolve();
    expect(signals).toEqual([{ type: 'events.fanned_out', count: 12 }]);

    events.next(token(5));
    await Promise.resolve();
    expect(signals.at(-1)).toEqual({ type: 'events.fanned_out', count: 3 });

    clients[0].emit('close');
    expect(writer.openStreams).toBe(2);
    events.complete();
    expect(writer.openStreams).toBe(0);
    expect(clients.every((client) => client.writableEnded)).toBe(true);
  });

  it("a failed event source ends the stream with a generic error event: the driver's text stays in the log", () => {
    const logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
    const writer = new SseWriter({ record: () => undefined });
    const events = new Subject<RunEvent>();
    const client = new FakeResponse();
    writer.stream(client as unknown as Response, events);
    events.error(Object.assign(new Error('value "99999999999" is out of range for type integer'), { code: '22003' }));

    const last = client.frames.at(-1) ?? '';
    expect(last).toMatch(/^event: error\ndata: /);
    expect(JSON.parse(last.split('data: ')[1])).toEqual({ code: 'stream_failed', message: 'The event stream failed; reconnect with Last-Event-ID to resume' });
    expect(client.frames.join('')).not.toContain('out of range');
    expect(client.writableEnded).toBe(true);
    expect(String(logged.mock.calls[0]?.[0])).toContain('out of range');
  });

  it('opens with a retry line, then the first heartbeat, so EventSource reconnects within a second', () => {
    const writer = new SseWriter({ record: () => undefined });
    const client = new FakeResponse();
    writer.stream(client as unknown as Response, new Subject<RunEvent>());
    expect(client.frames[0]).toBe('retry: 1000\nevent: heartbeat\ndata: {}\n\n');
    writer.end(client as unknown as Response);
  });

  it("writes status and error texts in the stream's language; the stored event and other readers keep English", () => {
    const writer = new SseWriter({ record: () => undefined });
    const events = new Subject<RunEvent>();
    const [zh, en] = [new FakeResponse(), new FakeResponse()];
    writer.stream(zh as unknown as Response, events, { language: 'zh' });
    writer.stream(en as unknown as Response, events);
    const status: RunEvent = { runId: 'run_1', seq: 1, type: 'status', data: { phase: 'thinking', text: 'Thinking', step: 1 }, at: new Date() };
    const error: RunEvent = { runId: 'run_1', seq: 2, type: 'error', data: { code: 'rate_limited', message: 'The model provider is rate limiting requests; try again in a moment.' }, at: new Date() };
    const question: RunEvent = { runId: 'run_1', seq: 3, type: 'status', data: { phase: 'waiting', text: 'Which city?' }, at: new Date() };
    for (const event of [status, error, question, token(4)]) events.next(event);

    expect(zh.frames.slice(1)).toEqual([
      'id: 1\nevent: status\ndata: {"phase":"thinking","text":"正在思考","step":1}\n\n',
      'id: 2\nevent: error\ndata: {"code":"rate_limited","message":"模型服务商正在限流：请求过于频繁，请稍后再试。"}\n\n',
      'id: 3\nevent: status\ndata: {"phase":"waiting","text":"Which city?"}\n\n',
      'id: 4\nevent: token\ndata: {"text":"t4"}\n\n',
    ]);
    expect(en.frames[1]).toBe('id: 1\nevent: status\ndata: {"phase":"thinking","text":"Thinking","step":1}\n\n');
    expect(status.data).toEqual({ phase: 'thinking', text: 'Thinking', step: 1 });
    events.complete();
  });
});

import { Writable } from 'node:stream';
import pino from 'pino';
import { NestPinoLogger } from './nest-logger';

function capture(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { lines, logger: new NestPinoLogger(pino({ level }, sink)) };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('NestPinoLogger', () => {
  it('writes the message with Nest’s last string parameter as the context', async () => {
    const { lines, logger } = capture();
    logger.log('Started', 'RunExecutor');
    logger.warn('Lease lost');
    await tick();
    expect(lines).toEqual([
      expect.objectContaining({ level: 30, context: 'RunExecutor', msg: 'Started' }),
      expect.objectContaining({ level: 40, msg: 'Lease lost' }),
    ]);
    expect(lines[1]).not.toHaveProperty('context');
  });

  it('logs an Error as err, and Nest’s (message, stack, context) contract as one error with that stack', async () => {
    const { lines, logger } = capture();
    logger.error(new Error('boom'), 'Tools');
    logger.error('Unhandled', 'Error: x\n    at f (a.js:1:1)', 'ExceptionsHandler');
    await tick();
    expect(lines[0]).toMatchObject({ level: 50, context: 'Tools', msg: 'boom', err: { message: 'boom' } });
    expect(lines[1]).toMatchObject({ context: 'ExceptionsHandler', msg: 'Unhandled', err: { stack: 'Error: x\n    at f (a.js:1:1)' } });
  });

  it('merges an object message into the line and honours the level', async () => {
    const { lines, logger } = capture('warn');
    logger.debug('hidden', 'X');
    logger.log('hidden too');
    logger.warn({ runId: 'run_1', msg: 'slow' }, 'Runs');
    await tick();
    expect(lines).toEqual([expect.objectContaining({ runId: 'run_1', msg: 'slow', context: 'Runs' })]);
  });
});

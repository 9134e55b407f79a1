/**
 * The executor on a real database with a scripted model: bounded slots and the queue,
 * multitask (enqueue, interrupt), leases held by another instance, recovery of an orphaned run
 * at bootstrap, a lease lost while the run streams, and one that cannot be renewed in time.
 */
import { AUTH, briefly, deferred, ScriptedModel, tokenText, toolCall, useCore } from '../../../test/support/core-harness';

/** every timer but setInterval stays real: the executor renews leases with setInterval */
const ONLY_INTERVALS_FAKE: Parameters<typeof jest.useFakeTimers>[0] = {
  doNotFake: [
    'Date', 'hrtime', 'nextTick', 'performance', 'queueMicrotask', 'requestAnimationFrame', 'cancelAnimationFrame',
    'requestIdleCallback', 'cancelIdleCallback', 'setImmediate', 'clearImmediate', 'setTimeout', 'clearTimeout',
  ],
};
const RENEW_MS = 5_000; // a sixth of the default HELIX_LEASE_MS (run-leases.ts)

describe('run executor (database, scripted model)', () => {
  describe('with one execution slot', () => {
    const h = useCore({ HELIX_MAX_CONCURRENT_RUNS: '1' });

    it('a second run waits CREATED (no model call) and starts when the slot frees', async () => {
      const first = await h.conversation();
      const second = await h.conversation();
      const release = deferred();
      h.model.answer({ text: ['one'], hang: release.promise }, { text: ['two'] });
      const a = await h.post(first, 'first');
      await h.waitUntil('the first run streams', () => h.model.calls[0]?.hanging === true);
      const b = await h.post(second, 'second');
      // waiting for a slot: created, never EXECUTING, and nothing was asked for it yet
      expect(await h.runRows.find(b.run.id)).toMatchObject({ state: 'CREATED', step: 0, pendingAction: null });
      expect(h.model.calls).toHaveLength(1);

      release.resolve();
      expect(await h.waitForRun(a.run.id)).toMatchObject({ state: 'SUCCEEDED' });
      const run = await h.waitForRun(b.run.id);
      expect(run).toMatchObject({ state: 'SUCCEEDED', step: 1 });
      expect(h.model.calls).toHaveLength(2);
      expect(h.model.calls[1].messages.at(-1)).toEqual({ role: 'user', content: 'second' });
      expect(tokenText(await h.eventsOf(run.id))).toBe('two');
    });

    it('a run waiting for a slot can be cancelled: it never starts', async () => {
      const release = deferred();
      h.model.answer({ text: ['one'], hang: release.promise });
      const a = await h.post(await h.conversation(), 'first');
      await h.waitUntil('the first run streams', () => h.model.calls[0]?.hanging === true);
      const b = await h.post(await h.conversation(), 'second');
      expect(await h.runs.cancel(AUTH, b.run.id)).toMatchObject({ state: 'CANCELLED', step: 0 });
      release.resolve();
      await h.waitForRun(a.run.id);
      await h.idle(b.run.id);
      expect(h.model.calls).toHaveLength(1);
      expect(await h.runRows.find(b.run.id)).toMatchObject({ state: 'CANCELLED', step: 0 });
    });

    it('a message refused (404, 409) gives its slot back: the next run starts at once', async () => {
      await expect(h.post('conv_missing', 'hi')).rejects.toThrow('not found');
      const waiting = await h.conversation();
      h.model.answer({ toolCalls: [toolCall('call_q', 'ask_user', { question: 'Sure?' })] });
      const a = await h.post(waiting, 'ask');
      await h.waitForRun(a.run.id); // AWAIT_USER: it holds no slot
      await expect(h.post(waiting, 'again')).rejects.toThrow('already has a live run');
      h.model.answer({ text: ['at once'] });
      const b = await h.post(await h.conversation(), 'hi');
      // written already executing, its first call sent before the POST returned
      expect(await h.runRows.find(b.run.id)).toMatchObject({ step: 1 });
      expect(h.model.calls).toHaveLength(2);
      expect(await h.waitForRun(b.run.id)).toMatchObject({ state: 'SUCCEEDED' });
      await h.runs.cancel(AUTH, a.run.id);
    });
  });

  describe('with free slots', () => {
    const h = useCore();

    afterEach(() => expect(h.model.unused).toBe(0));

    /**
     * Ends a run left to an imaginary instance, so that a later instance's bootstrap does not
     * recover it (on the embedded database, a bootstrap releases every lease: all are a dead process's).
     */
    const abandon = (runId: string) =>
      h.sql.$executeRaw`UPDATE runs SET state = 'CANCELLED', finished_at = now(), lease_owner = NULL, lease_until = NULL WHERE id = ${runId}`;

    it('multitask enqueue: a message posted during a live run is stored and its run queued, then started after it', async () => {
      const conversationId = await h.conversation({ multitask: 'enqueue' });
      const release = deferred();
      h.model.answer({ text: ['first answer'], hang: release.promise }, { text: ['second answer'] });
      const a = await h.post(conversationId, 'one');
      await h.waitUntil('the first run streams', () => h.model.calls[0]?.hanging === true);
      const b = await h.post(conversationId, 'two');
      expect(b.message).toMatchObject({ content: 'two', runId: b.run.id });
      expect(await h.runRows.find(b.run.id)).toMatchObject({ state: 'CREATED', pendingAction: { type: 'queued' }, leaseOwner: null });
      expect(h.model.calls).toHaveLength(1); // no early call for a queued run

      release.resolve();
      expect(await h.waitForRun(a.run.id)).toMatchObject({ state: 'SUCCEEDED' });
      expect(await h.waitForRun(b.run.id)).toMatchObject({ state: 'SUCCEEDED', pendingAction: null });
      // the queued run sees the conversation as it was when it started: the first answer included
      expect(h.model.calls[1].messages.slice(1)).toEqual([
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: 'two' },
      ]);
    });

    it('a queued run sees the run before it even when their ids do not sort by creation time', async () => {
      const conversationId = await h.conversation({ multitask: 'enqueue' });
      const release = deferred();
      h.model.answer({ text: ['first answer'], hang: release.promise }, { text: ['second answer'] });
      const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now() + 60_000); // the clock steps back after this post
      const a = await h.post(conversationId, 'one');
      clock.mockRestore();
      await h.waitUntil('the first run streams', () => h.model.calls[0]?.hanging === true);
      const b = await h.post(conversationId, 'two');
      expect(b.run.id < a.run.id).toBe(true);
      release.resolve();
      await h.waitForRun(a.run.id);
      expect(await h.waitForRun(b.run.id)).toMatchObject({ state: 'SUCCEEDED' });
      expect(h.model.calls[1].messages.slice(1)).toEqual([
        { role: 'user', content: 'one' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: 'two' },
      ]);
    });

    it('multitask interrupt: the live run is cancelled (keeping what it showed) and the new one runs', async () => {
      const conversationId = await h.conversation({ multitask: 'interrupt' });
      h.model.answer({ text: ['Let me th'], hang: true }, { text: ['new answer'] });
      const a = await h.post(conversationId, 'one');
      await h.waitUntil('the first run streams', () => h.model.calls[0]?.hanging === true);
      const b = await h.post(conversationId, 'two');
      expect(await h.waitForRun(a.run.id)).toMatchObject({ state: 'CANCELLED' });
      expect(h.model.calls[0].aborted).toBe(true);
      expect(await h.waitForRun(b.run.id)).toMatchObject({ state: 'SUCCEEDED' });
      const messages = await h.messagesOf(conversationId);
      expect(briefly(messages).map(({ runId, content, parts }) => [runId, content, parts.kind])).toEqual([
        [a.run.id, 'one', 'user'],
        [a.run.id, 'Let me th', 'partial'], // stored before the question that interrupted it
        [b.run.id, 'two', 'user'],
        [b.run.id, 'new answer', 'answer'],
      ]);
      // a partial answer is the user's record, not the model's context
      expect(h.model.calls[1].messages.slice(1)).toEqual([{ role: 'user', content: 'one' }, { role: 'user', content: 'two' }]);
    });

    it('multitask interrupt of a run waiting for a reply: it is cancelled at once and the new run starts', async () => {
      const conversationId = await h.conversation({ multitask: 'interrupt' });
      h.model.answer({ toolCalls: [toolCall('call_q', 'ask_user', { question: 'Which?' })] }, { text: ['moved on'] });
      const a = await h.post(conversationId, 'one');
      expect(await h.waitForRun(a.run.id)).toMatchObject({ state: 'AWAIT_USER' });
      const b = await h.post(conversationId, 'never mind');
      expect(await h.waitForRun(a.run.id)).toMatchObject({ state: 'CANCELLED', pendingAction: null });
      expect(await h.waitForRun(b.run.id)).toMatchObject({ state: 'SUCCEEDED' });
    });

    it('a run leased by another live instance is not driven here', async () => {
      const conversationId = await h.conversation();
      const until = new Date(Date.now() + 60_000);
      const run = await h.seedRun(conversationId, 'hi', { lease: { owner: 'another-instance', until } });
      h.executor.submit(run.id);
      await h.idle(run.id);
      expect(h.model.calls).toHaveLength(0);
      expect(await h.runRows.find(run.id)).toMatchObject({ state: 'EXECUTING', step: 1, leaseOwner: 'another-instance', leaseUntil: until, finishedAt: null });
      expect(await h.eventsOf(run.id)).toEqual([]);
      await abandon(run.id);
    });

    it('an orphaned run (EXECUTING, no lease) is resumed by an instance at bootstrap and finished there', async () => {
      const conversationId = await h.conversation();
      const orphan = await h.seedRun(conversationId, 'left behind');
      expect(orphan).toMatchObject({ state: 'EXECUTING', step: 1, leaseOwner: null });
      const model = new ScriptedModel().answer({ text: ['picked up'] });
      const other = await h.another({ model });
      const run = await other.waitForRun(orphan.id);
      expect({ ...run, error: run.error }).toMatchObject({ state: 'SUCCEEDED', error: null, step: 1, leaseOwner: null }); // the cut-off step is not counted again
      expect(model.calls).toHaveLength(1);
      expect(model.calls[0].messages.at(-1)).toEqual({ role: 'user', content: 'left behind' });
      expect(h.model.calls).toHaveLength(0);
      expect((await h.messagesOf(conversationId)).map((m) => m.content)).toEqual(['left behind', 'picked up']);
      const events = await other.eventsOf(run.id);
      expect(events[0]).toMatchObject({ seq: 1, type: 'status', data: { phase: 'thinking', step: 1 } });
      expect(events.at(-1)).toMatchObject({ type: 'done', data: { state: 'SUCCEEDED' } });
    });

    it('a queued run whose conversation has no live run left (it ended while no process ran) is started at bootstrap', async () => {
      const conversationId = await h.conversation({ multitask: 'enqueue' });
      const queued = await h.seedRun(conversationId, 'waited', { state: 'CREATED', changes: { pendingAction: { type: 'queued' } } });
      expect(queued).toMatchObject({ state: 'CREATED', step: 0, pendingAction: { type: 'queued' }, leaseOwner: null });
      const model = new ScriptedModel().answer({ text: ['my turn'] });
      const other = await h.another({ model });
      expect(await other.waitForRun(queued.id)).toMatchObject({ state: 'SUCCEEDED', step: 1, pendingAction: null });
      expect(model.calls[0].messages.at(-1)).toEqual({ role: 'user', content: 'waited' });
    });

    it('a run cancelled through another instance gets nothing more stored by the instance driving it', async () => {
      const other = await h.another(); // started first: its bootstrap would release this instance's leases (embedded)
      const conversationId = await h.conversation();
      const release = deferred();
      h.model.answer({ text: ['Hello'], hang: release.promise });
      const posted = await h.post(conversationId, 'hi');
      await h.waitUntil('the model streams', () => h.model.calls[0]?.hanging === true);
      expect(await other.runs.cancel(AUTH, posted.run.id)).toMatchObject({ state: 'CANCELLED' });
      release.resolve();
      await h.idle(posted.run.id);
      expect((await h.messagesOf(conversationId)).map((m) => m.parts.kind)).not.toContain('answer');
    });

    it('a run stopped by a shutdown is left to recovery untouched, and the next instance finishes it without repeating what was shown', async () => {
      const first = await h.another({ model: new ScriptedModel().answer({ text: ['Hel'], hang: true }) });
      const conversationId = await h.conversation();
      const posted = await first.post(conversationId, 'hi');
      await first.waitUntil('the model streams', () => first.model.calls[0]?.hanging === true);
      await first.close();
      expect(first.model.calls[0]).toMatchObject({ aborted: true });
      const stopped = (await h.runRows.find(posted.run.id))!;
      expect(stopped).toMatchObject({ state: 'EXECUTING', step: 1, leaseOwner: null, error: null, finishedAt: null });
      expect((await h.messagesOf(conversationId)).map((m) => m.parts.kind)).toEqual(['user']);

      const next = await h.another({ model: new ScriptedModel().answer({ text: ['Hel', 'lo'] }) });
      expect(await next.waitForRun(posted.run.id)).toMatchObject({ state: 'SUCCEEDED', step: 1 });
      const events = await next.eventsOf(posted.run.id);
      expect(tokenText(events)).toBe('Hello');
      expect(events.filter((e) => e.type === 'done')).toHaveLength(1);
      expect((await h.messagesOf(conversationId)).map((m) => [m.content, m.parts.kind])).toEqual([['hi', 'user'], ['Hello', 'answer']]);
    });

    it('renews its lease while driving; when another instance has taken it, stops at once and leaves the run to it', async () => {
      jest.useFakeTimers(ONLY_INTERVALS_FAKE);
      try {
        const conversationId = await h.conversation();
        h.model.answer({ text: ['Hel'], hang: true });
        const posted = await h.post(conversationId, 'hi');
        await h.waitUntil('the model streams', () => h.model.calls[0]?.hanging === true);
        const leased = (await h.runRows.find(posted.run.id))!;
        expect(leased.leaseOwner).toBe(h.executor.instanceId);

        // a renewal while the lease is this instance's extends it, and the run goes on
        await jest.advanceTimersByTimeAsync(RENEW_MS);
        await h.waitUntil('the lease is renewed', async () => (await h.runRows.find(posted.run.id))!.leaseUntil! > leased.leaseUntil!);
        expect(h.model.calls[0].aborted).toBe(false);

        // another instance takes the lease (this one looked dead to it); the next renewal finds out
        await h.sql.$executeRaw`UPDATE runs SET lease_owner = 'instance-b', lease_until = now() + interval '1 minute' WHERE id = ${posted.run.id}`;
        await jest.advanceTimersByTimeAsync(RENEW_MS);
        // the renewal's statement is real I/O: it may answer after the timers have been advanced
        await h.waitUntil('the renewal finds the lease taken', () => h.model.calls[0].aborted === true);
        await h.idle(posted.run.id);
        expect(h.model.calls[0]).toMatchObject({ aborted: true, outcome: 'aborted' });
        expect(h.model.calls[0].signal?.reason).toEqual(expect.objectContaining({ reason: 'lease_lost', handsOver: true }));

        // not ended: no state change, no error, no partial message; the lease stays the other instance's
        const run = (await h.runRows.find(posted.run.id))!;
        expect(run).toMatchObject({ state: 'EXECUTING', error: null, finishedAt: null, leaseOwner: 'instance-b' });
        const types = (await h.eventsOf(run.id)).map((e) => e.type);
        expect(types).not.toContain('done');
        expect(types).not.toContain('error');
        expect((await h.messagesOf(conversationId)).map((m) => m.parts.kind)).toEqual(['user']);
        expect(await h.executor.cancel(run.id)).toBe(false); // no longer driven here
        await abandon(run.id);
      } finally {
        jest.useRealTimers();
      }
    });
  });
  describe('with a short lease', () => {
    const h = useCore({ HELIX_LEASE_MS: '1500' });

    it('stops driving a run whose lease it cannot renew before it runs out (the database is unreachable)', async () => {
      const conversationId = await h.conversation();
      h.model.answer({ text: ['Hel'], hang: true });
      const posted = await h.post(conversationId, 'hi');
      await h.waitUntil('the model streams', () => h.model.calls[0]?.hanging === true);
      const claim = jest.spyOn(h.runRows, 'claimLease').mockRejectedValue(new Error('connection refused'));
      try {
        // renewals every 250 ms fail; the one that would come after the lease (1 s) ran out stops the run
        await h.waitUntil('the run is stopped', () => h.model.calls[0].aborted === true);
        expect(claim.mock.calls.length).toBeGreaterThanOrEqual(1);
        expect(h.model.calls[0].signal?.reason).toEqual(expect.objectContaining({ reason: 'lease_lost', handsOver: true }));
      } finally {
        claim.mockRestore();
      }
      await h.idle(posted.run.id);
      // handed over, not ended: another instance resumes it once the lease has run out
      expect(await h.runRows.find(posted.run.id)).toMatchObject({ state: 'EXECUTING', finishedAt: null });
    });

    it('a run that stops while its lease is being renewed is released after the renewal, so it is not leased again', async () => {
      const conversationId = await h.conversation();
      const asked = deferred();
      h.model.answer({ text: ['One moment'], hang: asked.promise, toolCalls: [toolCall('c1', 'ask_user', { question: 'Which city?' })] });
      const posted = await h.post(conversationId, 'ask me');
      await h.waitUntil('the model streams', () => h.model.calls[0]?.hanging === true);
      // the next renewal (every 250 ms) waits in flight until the run has stopped
      const renewing = deferred();
      const stopped = deferred();
      const claim = h.runRows.claimLease.bind(h.runRows);
      const spy = jest.spyOn(h.runRows, 'claimLease').mockImplementationOnce(async (...args) => {
        renewing.resolve();
        await stopped.promise;
        return claim(...args);
      });
      const released = deferred();
      const release = h.runRows.releaseLease.bind(h.runRows);
      const releaseSpy = jest.spyOn(h.runRows, 'releaseLease').mockImplementation(async (...args) => {
        await release(...args);
        released.resolve();
      });
      try {
        await renewing.promise;
        asked.resolve(); // the model asks the user: the run parks in AWAIT_USER and its driver stops
        await h.waitUntil('the run waits for the user', async () => (await h.runRows.find(posted.run.id))!.state === 'AWAIT_USER');
        // time for a release that does not wait for the renewal to happen first
        await Promise.race([released.promise, new Promise((resolve) => setTimeout(resolve, 500))]);
        stopped.resolve();
        await h.idle(posted.run.id);
      } finally {
        spy.mockRestore();
        releaseSpy.mockRestore();
      }
      // released after the renewal landed, not before it: another instance can take the reply at once
      expect(await h.runRows.find(posted.run.id)).toMatchObject({ state: 'AWAIT_USER', leaseOwner: null, leaseUntil: null });
    });
  });
});

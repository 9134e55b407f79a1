/**
 * Memory against the database and the runtime (core harness, scripted model): the window sized
 * to a small model, a summary written when the history outgrows it and used instead of the
 * messages it covers, a failed summary that leaves the run going, token warnings, compaction
 * on request, and token counts of a Chinese conversation.
 */
import { ConflictException, NotFoundException } from '@nestjs/common';
import { OFFLINE_MODEL } from '../model/model-catalog';
import { ModelRouter } from '../model/model-router';
import { AUTH, useCore } from '../../test/support/core-harness';
import { CompactionService } from './compaction.service';
import { SUMMARY_HEADING } from './memory-window';
import { SUMMARY_INSTRUCTION } from './summarizer';
import { SummaryRepository } from './summary.repository';

/** ~300 estimated tokens of English (the offline model's tokens are estimated: 4 characters each) */
const long = (tag: string) => `${tag}: ${'lorem ipsum dolor sit amet '.repeat(44)}`.slice(0, 1200);

describe('memory (database, scripted model)', () => {
  const h = useCore();
  let limits: jest.SpyInstance;

  beforeEach(() => {
    // a 2,000-token model: prompt limit 2000 − 500 (output) − 200 (reserve) = 1,300
    limits = jest.spyOn(h.get(ModelRouter), 'limits').mockResolvedValue({ ref: OFFLINE_MODEL, contextWindow: 2000 });
  });
  afterEach(() => limits.mockRestore());

  const exchange = async (conversationId: string, tag: string, ...answers: Parameters<typeof h.model.answer>) => {
    h.model.answer(...answers);
    const posted = await h.post(conversationId, long(tag), { mode: 'direct' });
    const run = await h.waitForRun(posted.run.id);
    expect(run.state).toBe('SUCCEEDED');
    return { run, events: await h.eventsOf(run.id) };
  };

  it('summarises what no longer fits, uses the summary in the window, keeps every message', async () => {
    const conversationId = await h.conversation();
    const first = await exchange(conversationId, 'FIRST', { text: [long('ANSWER1')] });
    const context = first.events.find((e) => e.type === 'context')!;
    expect(context.data).toEqual({
      model: 'offline:echo', contextWindow: 2000, estimatedTokens: expect.any(Number), historyMessages: 1, summarized: false, retrieved: 0,
    });
    await exchange(conversationId, 'SECOND', { text: [long('ANSWER2')] });
    expect(await h.get(SummaryRepository).latest(conversationId)).toBeUndefined();

    // the third question makes five long messages: more than 1,300 tokens
    h.model.reset();
    const third = await exchange(conversationId, 'THIRD', { text: ['The user first asked FIRST-things.'] }, { text: ['third answer'] });
    const [summaryCall, answerCall] = h.model.calls;
    expect(summaryCall.request.temperature).toBe(0.2);
    expect(summaryCall.messages.at(-1)).toEqual({ role: 'user', content: SUMMARY_INSTRUCTION });
    expect(summaryCall.messages[1].content).toContain('User: FIRST:');
    const summary = (await h.get(SummaryRepository).latest(conversationId))!;
    expect(summary).toMatchObject({ coversFromSeq: 1, coversToSeq: 1, content: 'The user first asked FIRST-things.', model: 'offline:echo' });
    // the answer's window: the summary instead of the first message
    expect(answerCall.messages[0].content).toContain(`${SUMMARY_HEADING}\nThe user first asked FIRST-things.`);
    expect(JSON.stringify(answerCall.messages)).not.toContain('FIRST: lorem');
    expect(answerCall.messages.slice(1).map((m) => m.content.slice(0, 7))).toEqual(['ANSWER1', 'SECOND:', 'ANSWER2', 'THIRD: ']);
    const types = third.events.map((e) => e.type);
    expect(types.slice(0, 5)).toEqual(['status', 'status', 'usage', 'context', 'token_warning']);
    expect(third.events[1].data).toMatchObject({ phase: 'summarizing' });
    // the summary's call is the run's: held against the daily budget, charged, announced
    const summaryUsage = third.events[2].data as { promptTokens: number; completionTokens: number };
    expect(summaryUsage).toMatchObject({ promptTokens: 10, completionTokens: 1 });
    expect(h.budget.reservations.map((r) => r.request.maxOutputTokens)).toContain(summaryCall.request.maxTokens);
    expect(third.run.usage.promptTokens).toBe(20); // the summary's and the answer's
    expect(third.events[3].data).toMatchObject({ historyMessages: 4, summarized: true });
    const warning = third.events[4].data as { percentage: number; estimatedTokens: number; limit: number };
    expect(warning.limit).toBe(1300);
    expect(warning.percentage).toBeGreaterThanOrEqual(80);
    expect(warning.percentage).toBe(Math.round((warning.estimatedTokens / 1300) * 100));
    // what the budget gate was told is the window's estimate
    expect(h.budget.reservations.at(-1)!.request.estimatedPromptTokens).toBe(warning.estimatedTokens);

    // the next run: the summary is extended with what drops out next (previous summary + new messages)
    h.model.reset();
    await exchange(conversationId, 'FOURTH', { text: ['Summary two.'] }, { text: ['fourth answer'] });
    expect(h.model.calls[0].messages[1].content).toContain('The summary so far:\nThe user first asked FIRST-things.');
    const extended = (await h.get(SummaryRepository).latest(conversationId))!;
    expect(extended).toMatchObject({ coversFromSeq: 1, content: 'Summary two.' });
    expect(extended.coversToSeq).toBeGreaterThan(1);
    // originals intact
    const messages = await h.messagesOf(conversationId);
    expect(messages.map((m) => m.content.slice(0, 6))).toEqual(['FIRST:', 'ANSWER', 'SECOND', 'ANSWER', 'THIRD:', 'third ', 'FOURTH', 'fourth']);
  });

  it('a summary at 90 % leaves headroom: the next turns need none', async () => {
    const conversationId = await h.conversation();
    const turn = async (question: string, ...answers: Parameters<typeof h.model.answer>) => {
      h.model.reset();
      h.model.answer(...answers);
      const posted = await h.post(conversationId, question, { mode: 'direct' });
      const run = await h.waitForRun(posted.run.id);
      const context = (await h.eventsOf(run.id)).find((e) => e.type === 'context')?.data;
      const summaries = h.model.calls.filter((call) => call.messages.at(-1)?.content === SUMMARY_INSTRUCTION).length;
      return { state: run.state, summaries, context };
    };
    expect(await turn('Question one?', { text: ['Answer one.'] })).toMatchObject({ state: 'SUCCEEDED', summaries: 0 });
    // a long answer among the newer exchanges (~1,100 tokens): the third question takes the
    // window above 90 % of 1,300, and summarising its older half alone would leave it there
    await turn('Question two?', { text: [`ANSWER2: ${'lorem ipsum dolor sit amet '.repeat(180)}`.slice(0, 4700)] });
    const third = await turn('Question three?', { text: ['Summary.'] }, { text: ['Answer three.'] });
    expect(third).toMatchObject({ state: 'SUCCEEDED', summaries: 1, context: { summarized: true } });
    for (const question of ['Question four?', 'Question five?']) {
      const next = await turn(question, { text: ['Another answer.'] });
      expect(next).toMatchObject({ state: 'SUCCEEDED', summaries: 0, context: { summarized: true } });
    }
  });

  it('a summary that fails leaves the run going with the recent messages', async () => {
    const conversationId = await h.conversation();
    await exchange(conversationId, 'ONE', { text: [long('REPLY1')] });
    await exchange(conversationId, 'TWO', { text: [long('REPLY2')] });
    h.model.reset();
    await exchange(conversationId, 'THREE', { error: new Error('summariser down') }, { text: ['still answered'] });
    expect(await h.get(SummaryRepository).latest(conversationId)).toBeUndefined();
    const answerCall = h.model.calls[1];
    expect(answerCall.messages[0].content).not.toContain(SUMMARY_HEADING);
    expect(answerCall.messages.slice(1).map((m) => m.content.slice(0, 6))).toEqual(['REPLY1', 'TWO: l', 'REPLY2', 'THREE:']);
  });

  it('warns at 80 % of the prompt limit', async () => {
    const conversationId = await h.conversation();
    // ~1,100 tokens of 1,300: over 80 %, under 90 %
    await exchange(conversationId, 'BIG', { text: ['ok'] });
    h.model.answer({ text: ['ok'] });
    const posted = await h.post(conversationId, 'x'.repeat(3200), { mode: 'direct' });
    const run = await h.waitForRun(posted.run.id);
    const warned = (await h.eventsOf(run.id)).find((e) => e.type === 'token_warning');
    expect(warned?.data).toMatchObject({ limit: 1300 });
    const { percentage } = warned!.data as { percentage: number };
    expect(percentage).toBeGreaterThanOrEqual(80);
    expect(percentage).toBeLessThan(90);
  });

  it('counts a Chinese conversation at about one token per character', async () => {
    limits.mockResolvedValue({ ref: OFFLINE_MODEL, contextWindow: 128_000 });
    const conversationId = await h.conversation();
    const chinese = '我们今天讨论一下人工智能的发展历史，从符号主义到连接主义，再到今天的大语言模型。'.repeat(10);
    h.model.answer({ text: ['好的'] });
    const run = await h.waitForRun((await h.post(conversationId, 'hi', { mode: 'direct' })).run.id);
    const base = (await h.eventsOf(run.id)).find((e) => e.type === 'context')!.data as { estimatedTokens: number };
    h.model.answer({ text: ['好的'] });
    const next = await h.waitForRun((await h.post(conversationId, chinese, { mode: 'direct' })).run.id);
    const context = (await h.eventsOf(next.id)).find((e) => e.type === 'context')!.data as { estimatedTokens: number };
    // the new user message and the short answer before it, each with a few tokens of overhead
    const added = context.estimatedTokens - base.estimatedTokens;
    expect(added).toBeGreaterThanOrEqual(chinese.length);
    expect(added).toBeLessThanOrEqual(chinese.length + 12);
  });

  describe('compaction on request', () => {
    it('summarises the older half, extends on a second call, 409 when nothing is left, 404 for unknown ids', async () => {
      const compaction = h.get(CompactionService);
      const conversationId = await h.conversation();
      for (const tag of ['A', 'B', 'C']) await exchange(conversationId, tag, { text: [`answer ${tag}`] });
      h.model.reset();
      h.model.answer({ text: ['Summary of A.'] });
      const first = await compaction.compact(AUTH, conversationId);
      // six messages in six exchanges: the older three are summarised
      expect(first).toEqual({
        id: expect.stringMatching(/^sum_/), conversationId, coversFromSeq: 1, coversToSeq: 3, content: 'Summary of A.', createdAt: expect.any(String),
      });
      h.model.answer({ text: ['Summary of A and B.'] });
      const second = await compaction.compact(AUTH, conversationId);
      expect(second).toMatchObject({ coversFromSeq: 1, coversToSeq: 4, content: 'Summary of A and B.' });
      expect(h.model.calls[1].messages[1].content).toContain('The summary so far:\nSummary of A.');
      h.model.answer({ text: ['Summary of A, B, C.'] });
      await expect(compaction.compact(AUTH, conversationId)).resolves.toMatchObject({ coversToSeq: 5 });
      await expect(compaction.compact(AUTH, conversationId)).rejects.toThrow(ConflictException);
      await expect(compaction.compact(AUTH, 'conv_unknown')).rejects.toThrow(NotFoundException);
      expect(await h.messagesOf(conversationId)).toHaveLength(6);
    });
  });
});

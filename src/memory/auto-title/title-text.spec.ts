import { OfflineModel, TITLE_PHRASE, titleFor } from '../../model/providers/offline.model';
import type { ConversationService } from '../../conversation/conversation.service';
import { AutoTitleService } from './auto-title.service';
import { cleanTitle, cutTitle, MAX_TITLE_CHARS, TITLE_SYSTEM_PROMPT } from './title-text';

describe('cleanTitle', () => {
  it.each([
    ['Trip to Paris', 'Trip to Paris'],
    ['"Trip to Paris."', 'Trip to Paris'],
    ['Title: Trip to Paris', 'Trip to Paris'],
    ['**Trip to Paris**\n\nThis conversation is about…', 'Trip to Paris'],
    ['\n\n  « Voyage à Paris » !', 'Voyage à Paris'],
    ['标题：巴黎旅行计划。', '巴黎旅行计划'],
    ['# Budget   planning\tfor 2026?', 'Budget planning for 2026'],
    ['"…"', ''],
    ['', ''],
  ])('%j → %j', (answer, title) => {
    expect(cleanTitle(answer)).toBe(title);
  });

  it(`cuts to ${MAX_TITLE_CHARS} characters after a whole word, or hard when there is none`, () => {
    const long = cleanTitle('A very long title that goes on and on about the many things that were discussed at length');
    expect(Array.from(long).length).toBeLessThanOrEqual(MAX_TITLE_CHARS);
    expect('A very long title that goes on and on about the many things that were').toContain(long);
    expect(long.endsWith(' ')).toBe(false);
    const chinese = '这'.repeat(80);
    expect(cleanTitle(chinese)).toBe('这'.repeat(60));
    // never splits a surrogate pair
    expect(cutTitle('😀'.repeat(70))).toBe('😀'.repeat(60));
  });
});

describe('the offline model titles from the first message', () => {
  it('recognises the title request', () => {
    expect(TITLE_SYSTEM_PROMPT.toLowerCase()).toContain(TITLE_PHRASE);
  });

  it.each([
    ['plan a trip to Paris. Then book the hotel.', 'Plan a trip to Paris'],
    ['calculate (2+3)*4', 'Calculate (2+3)*4'],
    ['What should I pack for a week of hiking in the Alps in October?', 'What should I pack for a'],
    ['帮我计划一次去巴黎的旅行。然后订酒店', '帮我计划一次去巴黎的旅行'],
    ['"Quoted words!"', 'Quoted words'],
  ])('%j → %j', (message, title) => {
    expect(titleFor(message)).toBe(title);
  });

  it('answers a title request with the title of the first user message, whatever came after it', () => {
    const { messages } = new AutoTitleService({} as ConversationService).prompt({ question: 'Plan a trip to Paris! With kids', answer: 'You said: …' });
    const request = { model: { provider: 'offline', modelId: 'echo' }, messages };
    expect(new OfflineModel().decide(request)).toEqual({ text: 'Plan a trip to Paris', toolCalls: [] });
    expect(Array.from(titleFor('x'.repeat(100))).length).toBe(60);
  });
});

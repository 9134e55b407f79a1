import { OfflineModel } from '../../model/providers/offline.model';
import { RISK_PHRASE } from '../../model/providers/offline-risk';
import { parseAssessment, RISK_RUBRIC } from './risk-analyzer';

/** What the offline model answers to the analyzer's request for one call. */
function offlineRates(name: string, args: object) {
  const text = new OfflineModel().decide({
    model: { provider: 'offline', modelId: 'echo' },
    messages: [
      { role: 'system', content: RISK_RUBRIC },
      { role: 'user', content: `Tool: ${name}\nArguments: ${JSON.stringify(args)}` },
    ],
  }).text;
  return parseAssessment(text);
}

describe('the risk analyzer with the offline model', () => {
  it('the offline model recognises the rubric', () => {
    expect(RISK_RUBRIC.toLowerCase()).toContain(RISK_PHRASE);
  });

  it('rates a call the same way every time, from the words of its name and arguments', () => {
    expect(offlineRates('calculator', { expression: '6*7' })).toEqual({ risk: 'low', reason: 'The call only reads or computes.' });
    expect(offlineRates('file_write', { path: 'notes.md', content: 'hi' })).toMatchObject({ risk: 'medium', reason: expect.stringContaining('"write"') });
    expect(offlineRates('shell', { command: 'ls' })).toMatchObject({ risk: 'high', reason: expect.stringContaining('"shell"') });
    expect(offlineRates('kb_search', { query: 'how to delete an account' })).toMatchObject({ risk: 'high', reason: expect.stringContaining('"delete"') });
    expect(offlineRates('kb_search', { query: 'input formats' })).toMatchObject({ risk: 'low' }); // whole words only
    expect(offlineRates('shell', { command: 'ls' })).toEqual(offlineRates('shell', { command: 'ls' }));
  });

  it('reads a rating wrapped in prose and refuses one without a known level', () => {
    expect(parseAssessment('Sure: ```json\n{"risk": "medium", "reason": "edits a file\\nsecond line"}\n```')).toEqual({ risk: 'medium', reason: 'edits a file' });
    expect(parseAssessment('{"risk": "severe", "reason": "?"}')).toBeUndefined();
    expect(parseAssessment('no json here')).toBeUndefined();
  });
});

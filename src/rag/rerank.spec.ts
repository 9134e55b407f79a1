import { parseRanking, RERANK_PASSAGE_CHARS, RERANK_RUBRIC, rerankRequest } from './rerank';

describe('rerank request', () => {
  it('numbers the passages under the question, each cut to RERANK_PASSAGE_CHARS, after the fixed rubric', () => {
    const long = 'word '.repeat(RERANK_PASSAGE_CHARS);
    const { messages, maxTokens } = rerankRequest('  which   port? ', ['first\n\npassage', long]);
    expect(messages[0]).toEqual({ role: 'system', content: RERANK_RUBRIC });
    const [question, , heading, first, , second] = messages[1].content.split('\n');
    expect(question).toBe('Question: which port?');
    expect(heading).toBe('Passages:');
    expect(first).toBe('[1] first passage');
    expect(second).toHaveLength('[2] '.length + RERANK_PASSAGE_CHARS + 1);
    expect(second.endsWith('…')).toBe(true);
    expect(maxTokens).toBeLessThan(100);
  });
});

describe('parseRanking', () => {
  it('reads {"ranking": […]} in prose or a code fence, as indexes', () => {
    expect(parseRanking('{"ranking": [3, 1, 2]}', 3)).toEqual([2, 0, 1]);
    expect(parseRanking('Here you go:\n```json\n{"ranking": ["2", 1]}\n```', 2)).toEqual([1, 0]);
  });

  it('reads a bare array, or one under another name, too', () => {
    expect(parseRanking('[2, 1]', 2)).toEqual([1, 0]);
    expect(parseRanking('{"order": [2, 1]}', 2)).toEqual([1, 0]);
  });

  it('drops unknown and repeated numbers and appends the passages left out in their fused order', () => {
    expect(parseRanking('{"ranking": [4, 9, 4, 0, 2.5, "x"]}', 5)).toEqual([3, 0, 1, 2, 4]);
  });

  it('is undefined for an answer with no ranking (the fused order then stands)', () => {
    for (const answer of ['', 'I cannot rank these.', '{"ranking": []}', '{"ranking": [7, 8]}', '{"ranking": "1, 2"}', '{not json}']) {
      expect(parseRanking(answer, 3)).toBeUndefined();
    }
  });
});

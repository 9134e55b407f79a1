import { extractOffline, queryKeys } from './graph-offline';
import { attribute, parseGraphAnswer } from './graph-prompt';
import { entityKey, relationLabel } from './graph.types';

describe('offline graph extraction', () => {
  it('takes capitalised phrases as names, not words that merely start a sentence, and relates those of a chunk', () => {
    const { entities, relations } = extractOffline('# Helix Server\n\nThe Helix Server keeps its data in PGlite. Refunds are paid by Acme Corp within 14 days.');
    expect(entities).toEqual([
      { name: 'Helix Server', type: 'name' },
      { name: 'PGlite', type: 'name' },
      { name: 'Acme Corp', type: 'name' },
    ]);
    expect(relations).toEqual([
      { source: 'Acme Corp', target: 'Helix Server', label: 'related_to' },
      { source: 'Acme Corp', target: 'PGlite', label: 'related_to' },
      { source: 'Helix Server', target: 'PGlite', label: 'related_to' },
    ]);
  });

  it('takes Chinese terms a chunk repeats or quotes', () => {
    const { entities } = extractOffline('《三体》是一部小说。这部小说讲了三体文明。');
    expect(entities.map((e) => e.name)).toEqual(expect.arrayContaining(['小说', '三体']));
    expect(entities.every((e) => e.type === 'term')).toBe(true);
  });

  it('is deterministic', () => {
    const text = 'Ada Lovelace met Charles Babbage in London. Babbage showed Ada Lovelace the Difference Engine.';
    expect(extractOffline(text)).toEqual(extractOffline(text));
  });

  it('looks a query up by every run of adjacent words, folded', () => {
    expect(queryKeys('Who built the Analytical   Engine?')).toEqual(expect.arrayContaining(['analytical engine', 'analytical', 'engine']));
    expect(queryKeys('the of')).toEqual(['the of']);
    expect(entityKey('  ＡＤＡ  Lovelace ')).toBe('ada lovelace');
    expect(relationLabel('Works For!')).toBe('works_for');
    expect(relationLabel('')).toBe('related_to');
  });
});

describe('model graph answers', () => {
  it('keeps well-formed entries, adds unlisted relation ends, and rejects what is not a JSON object', () => {
    expect(parseGraphAnswer('no json here')).toBeUndefined();
    expect(parseGraphAnswer('{"foo": 1}')).toBeUndefined();
    const graph = parseGraphAnswer('Sure: {"entities":[{"name":"Ada","type":"Person"},{"name":""}],"relations":[{"source":"Ada","target":"Engine","label":"uses"}]}');
    expect(graph).toEqual({
      entities: [{ name: 'Ada', type: 'person' }, { name: 'Engine', type: 'thing' }],
      relations: [{ source: 'Ada', target: 'Engine', label: 'uses' }],
    });
    // Ada is not named by "Adapter"; a relation belongs to a chunk naming both ends
    expect(attribute([{ id: 'c1', text: 'The Adapter uses an Engine.' }, { id: 'c2', text: 'Ada uses the engine.' }], graph!)).toEqual([
      { chunkId: 'c1', entities: [{ name: 'Engine', type: 'thing' }], relations: [] },
      { chunkId: 'c2', entities: graph!.entities, relations: graph!.relations },
    ]);
  });
});

/** The offline model's answer to the rag module's rerank rubric (here: the model module may not import rag). */
import { rerankRequest } from './rerank';
import { OfflineModel } from '../model/providers/offline.model';
import { coverageScores, offlineRanking } from '../model/providers/offline-rerank';

const ask = (query: string, passages: string[]) => new OfflineModel().decide({ model: { provider: 'offline', modelId: 'echo' }, ...rerankRequest(query, passages) }).text;

describe('the offline reranker', () => {
  it('answers the rerank rubric with a ranking of every passage, the one holding all of the question first', () => {
    const passages = [
      'Warranty claims need a receipt.',
      'Frame sizes: pick the frame by your height.',
      'Our workshop repairs brakes and gears. The bicycle frame warranty lasts ten years, a long time. Booking is online.',
    ];
    const ranking = JSON.parse(ask('How long does the bicycle frame warranty last?', passages)).ranking as number[];
    expect(ranking[0]).toBe(3);
    expect([...ranking].sort()).toEqual([1, 2, 3]);
  });

  it('is deterministic, and keeps the given order between passages without any of the words', () => {
    const passages = ['nothing here', 'still nothing', 'port 8080 is the default port'];
    const prompt = rerankRequest('which port', passages).messages[1].content;
    expect(offlineRanking(prompt)).toBe(offlineRanking(prompt));
    expect(JSON.parse(offlineRanking(prompt))).toEqual({ ranking: [3, 1, 2] });
  });

  it('scores rarer words higher and words standing together higher', () => {
    const [rare, common] = coverageScores(['zebra', 'horse'], ['a zebra', 'a horse', 'a horse too', 'horse horse']);
    expect(rare).toBeGreaterThan(common);
    const [near, far] = coverageScores(['red', 'car'], ['red car ' + 'x '.repeat(20), 'red ' + 'x '.repeat(20) + 'car']);
    expect(near).toBeGreaterThan(far);
  });

  it('uses the stop words when the question has nothing else', () => {
    const ranking = JSON.parse(ask('what is it', ['nothing', 'what is it?'])).ranking as number[];
    expect(ranking).toEqual([2, 1]);
  });
});

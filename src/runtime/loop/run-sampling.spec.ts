import { outputLimit, runSampling } from './run-sampling';

describe('runSampling', () => {
  it('lays the message over the defaults, field by field', () => {
    expect(runSampling({ temperature: 0.7, seed: 1, stop: ['x'] }, { temperature: 0.2, topP: 0.5 }, {})).toEqual({ temperature: 0.2, topP: 0.5, seed: 1, stop: ['x'] });
  });

  it('is undefined when nothing is set', () => {
    expect(runSampling(undefined, undefined, { maxOutputTokens: 100 })).toBeUndefined();
    expect(runSampling({}, {}, {})).toBeUndefined();
  });

  it("takes the model config's maxTokens as a ceiling, not a default", () => {
    expect(runSampling(undefined, { maxTokens: 5000 }, { maxOutputTokens: 300 })).toEqual({ maxTokens: 300 });
    expect(runSampling(undefined, { maxTokens: 200 }, { maxOutputTokens: 300 })).toEqual({ maxTokens: 200 });
    expect(runSampling(undefined, { temperature: 1 }, { maxOutputTokens: 300 })).toEqual({ temperature: 1 });
  });

  it('clamps stored defaults that are out of range (the settings column is not trusted)', () => {
    expect(runSampling({ temperature: 9, topP: 0, maxTokens: 0.4, seed: 2.7, stop: ['', 'a', 'b', 'c', 'd', 'e'] }, undefined, {})).toEqual({
      temperature: 2, topP: 0.01, maxTokens: 1, seed: 2, stop: ['a', 'b', 'c', 'd'],
    });
    expect(runSampling({ temperature: -1 }, undefined, {})).toEqual({ temperature: 0 });
  });
});

describe('outputLimit', () => {
  const limits = { contextWindow: 8000, maxOutputTokens: 1000 };

  it("is the run's limit, else the model config's, within the room the prompt leaves", () => {
    expect(outputLimit(500, limits, 1000)).toBe(500);
    expect(outputLimit(undefined, limits, 1000)).toBe(1000);
    expect(outputLimit(undefined, limits, 7500)).toBe(500);
    expect(outputLimit(4000, { contextWindow: 8000 }, 6000)).toBe(2000);
  });

  it('leaves the provider its default when nothing sets a limit', () => {
    expect(outputLimit(undefined, { contextWindow: 8000 }, 7900)).toBeUndefined();
  });

  it('never asks for less than one token', () => {
    expect(outputLimit(100, { contextWindow: 1000 }, 1200)).toBe(1);
  });
});

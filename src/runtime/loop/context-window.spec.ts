import { BASE_SYSTEM_PROMPT, systemPrompt } from './context-window';

describe('systemPrompt', () => {
  const skills = [{ name: 'cite', instructions: 'Cite your sources.' }];

  it("adds the run's instructions after the agent's prompt and skills, before the plan and the retrieved context", () => {
    const prompt = systemPrompt('You are a writer.', [{ title: 'Draft' }], { context: 'From the docs: X.', sources: [] }, skills, '  Answer in French.\n');
    expect(prompt).toBe(
      'You are a writer.' +
        '\n\nSkills you have; follow the instructions of each where it applies:\n## cite\nCite your sources.' +
        '\n\nAnswer in French.' +
        '\n\nYou are carrying out this approved plan, one step at a time:\n1. [current] Draft' +
        '\n\nWork on step 1 now, and only on it. When it is complete, reply with what it produced: this is the last step, so your reply is the final answer to the user.' +
        '\n\nFrom the docs: X.',
    );
  });

  it('adds them to the base prompt when the agent has none', () => {
    expect(systemPrompt(undefined, null, undefined, [], 'Be brief.')).toBe(`${BASE_SYSTEM_PROMPT}\n\nBe brief.`);
  });

  it('adds nothing for no instructions or blank ones', () => {
    for (const instructions of [undefined, null, '', ' \n ']) expect(systemPrompt('Agent.', null, undefined, [], instructions)).toBe('Agent.');
  });
});

import { CATALOGUE, keyOf, placeholdersOf, say, translate, type TextKey } from './catalogue';
import type { CatalogueEntry } from './entry';
import { FILE_TEXTS } from './texts-files';
import { OPENAI_TEXTS } from './texts-openai';
import { HTTP_TEXTS } from './texts-http';
import { MODEL_TEXTS, RUN_TEXTS } from './texts-run';
import { VALIDATION_TEXTS } from './texts-validation';

const entries = Object.entries(CATALOGUE) as [TextKey, CatalogueEntry][];
const sorted = (names: string[]) => [...names].sort();
/** a value per placeholder that no template contains, so a match can only come from its own */
const sample = (entry: CatalogueEntry) => Object.fromEntries(placeholdersOf(entry.en).map((name, i) => [name, `‹${name}${i}›`]));
const fill = (template: string, values: Record<string, string>) => template.replace(/\{([A-Za-z]\w*)\}/g, (_, name: string) => values[name]);

describe('the text catalogue', () => {
  it('no two sections declare the same key', () => {
    const sections = [HTTP_TEXTS, VALIDATION_TEXTS, RUN_TEXTS, MODEL_TEXTS, FILE_TEXTS, OPENAI_TEXTS].map((section) => Object.keys(section));
    expect(sections.flat().length).toBe(entries.length);
  });

  it.each(entries)('%s has both languages with the same placeholders', (_key, entry) => {
    expect(entry.en.trim()).not.toBe('');
    expect(entry.zh).toMatch(/[\u4e00-\u9fff\uff01-\uff5e]/); // Chinese, or at least its punctuation
    expect(sorted(placeholdersOf(entry.zh))).toEqual(sorted(placeholdersOf(entry.en)));
    for (const name of entry.nested ?? []) expect(placeholdersOf(entry.en)).toContain(name);
  });

  it.each(entries)('%s is recognised by its own template and translated with its values kept', (key, entry) => {
    const values = sample(entry);
    const english = fill(entry.en, values);
    expect(keyOf(english)).toBe(key);
    expect(translate(english, 'zh')).toBe(fill(entry.zh, values));
    expect(translate(english, 'en')).toBe(english);
  });

  it('say fills the English template (and English is what is stored)', () => {
    expect(say('run.thinking')).toBe('Thinking');
    expect(say('run.not_found', { id: 'run_1' })).toBe('Run run_1 not found');
    expect(say('run.not_plan_approval', { id: 'run_1', state: 'EXECUTING' })).toBe(
      'Run run_1 is EXECUTING; only a run awaiting plan approval can be resumed',
    );
  });

  it('keeps ids, states and field names as they are, and picks the most specific template', () => {
    expect(translate('Run run_9 is AWAIT_APPROVAL on a tool approval; only a run awaiting plan approval can be resumed', 'zh')).toBe(
      '运行 run_9 处于 AWAIT_APPROVAL（等待的是工具审批）；只有等待批准计划的运行才能继续',
    );
    expect(translate('settings.maxSteps must not be greater than 100', 'zh')).toBe('settings.maxSteps 不能大于 100');
  });

  it('translates a text nested in another, but never a value given by a person', () => {
    const limited = say('limit.exceeded', { detail: say('limit.run_queue', { count: 3 }), variable: 'HELIX_RUN_QUEUE_LIMIT' });
    expect(translate(limited, 'zh')).toBe('已有 3 个运行在排队等待执行；请稍后再试（限制：HELIX_RUN_QUEUE_LIMIT）');
    const override = say('message.model_override', { reason: say('model.unknown', { model: 'openai:nope' }) });
    expect(translate(override, 'zh')).toBe('modelOverride：模型不存在：openai:nope。');
    // a rejection's reason is the user's own words, even when they read like a catalogue text
    expect(translate(say('run.plan_rejected_reason', { reason: 'Thinking' }), 'zh')).toBe('计划已被拒绝：Thinking');
  });

  it('leaves a text it does not know as it is, in any language', () => {
    expect(translate('What is your favourite colour?', 'zh')).toBe('What is your favourite colour?');
    expect(translate('', 'zh')).toBe('');
    expect(translate('Run run_1 not found, and more', 'zh')).toBe('Run run_1 not found, and more');
  });
});

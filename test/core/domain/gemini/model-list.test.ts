// Which model to ask from an ordered list, and the retired (404) models kept in FQ_MODELS_RETIRED between runs.
import { describe, expect, it } from 'vitest';
import { firstLiveModel, readRetiredModels, retiredModelsToWrite, type RetiredModels } from '../../../../src/core/domain/gemini/model-list';

const NOW = Date.UTC(2026, 11, 2, 10);

describe('firstLiveModel', () => {
  it('an empty list names no model', () => {
    expect(firstLiveModel([], new Map())).toBe('');
  });
});

describe('readRetiredModels', () => {
  it.each([
    ['nothing stored', undefined],
    ['an empty value', ''],
    ['text that is not JSON', '{not json'],
    ['JSON null', 'null'],
    ['a number', '5'],
    ['a string', '"old-model"'],
    ['an array of times', JSON.stringify([NOW - 1000])],
  ])('%s reads as no retired models', (_name, stored) => {
    expect(readRetiredModels(stored, NOW)).toEqual(new Map());
  });

  it('a time that is not a number is unreadable and its model is asked again', () => {
    const stored = JSON.stringify({ 'text-time': String(NOW - 1000), 'no-time': null, 'old-model': NOW - 1000 });
    expect(readRetiredModels(stored, NOW)).toEqual(new Map([['old-model', NOW - 1000]]));
  });
});

describe('retiredModelsToWrite', () => {
  const one: RetiredModels = new Map([['old-model', NOW]]);

  it.each<[string, RetiredModels, string | undefined, string | null]>([
    ['none retired and nothing stored: nothing to write', new Map(), undefined, null],
    ['none retired and "none" stored: nothing to write', new Map(), '', null],
    ['none retired any more: "none" is written', new Map(), JSON.stringify({ 'old-model': NOW }), ''],
    ['a first retired model is written', one, undefined, JSON.stringify({ 'old-model': NOW })],
    ['the same list as stored: nothing to write', one, JSON.stringify({ 'old-model': NOW }), null],
  ])('%s', (_name, retired, stored, expected) => {
    expect(retiredModelsToWrite(retired, stored)).toBe(expected);
  });
});

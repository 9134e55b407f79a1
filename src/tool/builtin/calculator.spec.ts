import { CalculatorTool, evaluate } from './calculator';

describe('calculator', () => {
  it.each([
    ['2+3', 5],
    ['(2+3)*4', 20],
    ['2^10', 1024],
    ['2^3^2', 512],
    ['-3 + 5', 2],
    ['10 % 4', 2],
    ['7 / 2', 3.5],
    ['1.5e3 - 500', 1000],
    ['-(2+3)', -5],
    // a unary sign binds looser than ^, as in mathematics
    ['-2^2', -4],
    ['(-2)^2', 4],
    ['2^-1', 0.5],
    ['-2^-2', -0.25],
    ['3*-2', -6],
    ['--2', 2],
    ['2 - -2^2', 6],
  ])('%s = %d', (expression, value) => {
    expect(evaluate(expression)).toBe(value);
  });

  it.each(['2+', '(1+2', '1/0', 'process.exit()', '2 3', ''])('rejects %j', (expression) => {
    expect(() => evaluate(expression)).toThrow();
  });

  it('answers errors as failed results, not exceptions', async () => {
    const calculator = new CalculatorTool();
    await expect(calculator.run({ expression: '0.1+0.2' })).resolves.toEqual({ ok: true, output: '0.3' });
    await expect(calculator.run({ expression: '1/0' })).resolves.toEqual({
      ok: false,
      error: 'Cannot evaluate "1/0": division by zero',
    });
  });
});

import { Injectable } from '@nestjs/common';
import { HelixTool, type ToolDefinition, type ToolResult } from '../tool.types';

/**
 * Evaluates arithmetic (+ - * / % ^, parentheses, unary minus, decimals) with a small
 * recursive-descent parser: never `eval`, never anything but numbers. Precedence as in
 * mathematics: `^` binds tighter than a unary sign and is right-associative, so `-2^2` is -4,
 * `2^-1` is 0.5 and `2^3^2` is 512.
 */
export function evaluate(expression: string): number {
  const tokens = expression.match(/\d+(?:\.\d+)?(?:e[+-]?\d+)?|[-+*/%^()]|\S/gi) ?? [];
  let pos = 0;
  const peek = () => tokens[pos];
  const take = () => tokens[pos++];

  const primary = (): number => {
    const token = take();
    if (token === undefined) throw new Error('unexpected end of expression');
    if (token === '(') {
      const value = sum();
      if (take() !== ')') throw new Error('missing closing parenthesis');
      return value;
    }
    const value = Number(token);
    if (Number.isNaN(value)) throw new Error(`unexpected "${token}"`);
    return value;
  };
  const power = (): number => {
    const base = primary();
    if (peek() === '^') {
      take();
      // the exponent may carry its own sign: 2^-1
      return base ** signed();
    }
    return base;
  };
  const signed = (): number => {
    if (peek() === '-') {
      take();
      return -signed();
    }
    if (peek() === '+') {
      take();
      return signed();
    }
    return power();
  };
  const product = (): number => {
    let value = signed();
    while (peek() === '*' || peek() === '/' || peek() === '%') {
      const op = take();
      const right = signed();
      if ((op === '/' || op === '%') && right === 0) throw new Error('division by zero');
      value = op === '*' ? value * right : op === '/' ? value / right : value % right;
    }
    return value;
  };
  const sum = (): number => {
    let value = product();
    while (peek() === '+' || peek() === '-') {
      const op = take();
      const right = product();
      value = op === '+' ? value + right : value - right;
    }
    return value;
  };

  const result = sum();
  if (pos < tokens.length) throw new Error(`unexpected "${tokens[pos]}"`);
  if (!Number.isFinite(result)) throw new Error('result is not a finite number');
  return result;
}

@Injectable()
@HelixTool()
export class CalculatorTool implements ToolDefinition {
  readonly name = 'calculator';
  readonly description = 'Evaluate an arithmetic expression, e.g. "(2+3)*4" or "2^10".';
  readonly parameters = {
    type: 'object',
    properties: { expression: { type: 'string', minLength: 1, maxLength: 2000, description: 'the expression to evaluate' } },
    required: ['expression'],
    additionalProperties: false,
  };
  readonly risk = 'low';

  async run(args: Record<string, unknown>): Promise<ToolResult> {
    try {
      const value = evaluate(String(args.expression));
      return { ok: true, output: String(Number(value.toPrecision(15))) };
    } catch (error) {
      return { ok: false, error: `Cannot evaluate "${String(args.expression)}": ${error instanceof Error ? error.message : String(error)}` };
    }
  }
}

import { expect } from 'chai';
import { Decimal, exact, show, toNumber } from '../../../domain/shared/decimal.js';
import { roundDownToStep, roundPrice } from '../../../domain/copy/rounding.js';

describe('copy rounding: exact decimals, lot steps and prices', () => {
  describe('reading numbers', () => {
    it('reads a double as the decimal it stands for: 0.1 + 0.2 is 3/10', () => expect(exact(0.1 + 0.2).toFixed()).to.equal('0.3'));

    it('reads exponents both ways: 1.5e-7 and 1e21', () => {
      expect(exact(1.5e-7).toFixed()).to.equal('0.00000015');
      expect(exact(1e21).toFixed()).to.equal('1000000000000000000000');
    });

    it('reads negatives and zero', () => {
      expect(exact(-0.001).toFixed()).to.equal('-0.001');
      expect(exact(0).toFixed()).to.equal('0');
    });

    it('refuses NaN and infinities', () => {
      expect(() => exact(Number.NaN)).to.throw(RangeError, /not a finite number/);
      expect(() => exact(Number.POSITIVE_INFINITY)).to.throw(RangeError, /not a finite number/);
    });

    it('writes back the same double as the literal: 57/100 is 0.57', () => expect(toNumber(new Decimal(57).dividedBy(100))).to.equal(0.57));

    it('shows at most 10 significant digits in messages', () => expect(show(new Decimal(1).dividedBy(3))).to.equal('0.3333333333'));
  });

  describe('roundDownToStep', () => {
    const cases: readonly (readonly [number, number, number])[] = [
      [0.07, 0.01, 0.07],
      [0.57, 0.01, 0.57],
      [1.13, 0.01, 1.13],
      [0.1 + 0.2, 0.1, 0.3],
      [0.1 + 0.2, 0.01, 0.3],
      [0.7 + 0.1, 0.01, 0.8],
      [0.029, 0.01, 0.02],
      [2.4999, 0.5, 2],
      [1.26, 0.25, 1.25],
      [0.009, 0.01, 0],
      [12.3456, 0.001, 12.345],
    ];
    for (const [lots, step, expected] of cases) it(`${lots} on a ${step} step is ${expected}`, () => expect(roundDownToStep(lots, step)).to.equal(expected));

    it('refuses a step of 0', () => expect(() => roundDownToStep(1, 0)).to.throw(RangeError, /lot step must be positive/));
  });

  describe('roundPrice', () => {
    it('normalises to the digits, halves away from zero', () => {
      expect(roundPrice(1.095375, 5)).to.equal(1.09538);
      expect(roundPrice(1.095374, 5)).to.equal(1.09537);
      expect(roundPrice(-2.5, 0)).to.equal(-3);
    });

    it('keeps a price that already has the digits', () => expect(roundPrice(151.237, 3)).to.equal(151.237));

    it('drops extra digits to a 2-digit symbol', () => expect(roundPrice(2034.567, 2)).to.equal(2034.57));
  });
});

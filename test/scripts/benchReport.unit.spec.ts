// The arithmetic every benchmark reports with: medians of runs, nearest-rank percentiles, rounding.
import { expect } from 'chai';
import { median, percentile, round } from '../../scripts/bench/support/report.js';

describe('benchmark figures', () => {
  it('a median is the middle run, or the mean of the two middle runs, whatever the order', () => {
    expect(median([5, 1, 3])).to.equal(3);
    expect(median([4, 1, 3, 2])).to.equal(2.5);
    expect(Number.isNaN(median([]))).to.equal(true);
  });

  it('a percentile is the nearest rank of the sorted values', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).to.equal(50);
    expect(percentile(sorted, 99)).to.equal(99);
    expect(percentile([7], 99)).to.equal(7);
  });

  it('figures keep three significant digits', () => {
    expect(round(0.123456)).to.equal(0.123);
    expect(round(1.23456)).to.equal(1.23);
    expect(round(12345.6)).to.equal(12346);
  });
});

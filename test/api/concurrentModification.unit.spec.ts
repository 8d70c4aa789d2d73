// A write that keeps losing to concurrent writers of its aggregate (issue 13, item 6): the store's
// conflict leaves the API as 409 [CONCURRENT_MODIFICATION], and every write operation declares it.
import { expect } from 'chai';
import { declareRoutes } from '../../api/app.js';
import { errorBody, toApiError } from '../../api/errors.js';
import type { Services } from '../../app/services.js';
import { TransientAppendError, WrongExpectedVersionError } from '../../store/errors.js';

describe('concurrent modification', () => {
  for (const error of [new WrongExpectedVersionError('account-1', 3n, 5n), new TransientAppendError('account-1: writer order inverted')]) {
    it(`${error.name} after the retries answers 409 [CONCURRENT_MODIFICATION] with Retry-After, not 500`, () => {
      const apiError = toApiError(error);

      expect(apiError?.status).to.equal(409);
      expect(apiError?.headers).to.deep.equal({ 'Retry-After': '1' });
      const body = errorBody(apiError!);
      expect(body).to.have.keys('error', 'message');
      expect(body.error).to.equal('[CONCURRENT_MODIFICATION]');
      expect(body.message).to.match(/concurrent requests.*retry/);
      expect(body.message).not.to.include('account-1');
    });
  }

  it('every write operation declares 409 in its OpenAPI responses', () => {
    const writes = declareRoutes({} as Services).specs.filter((s) => s.method !== 'get');

    expect(writes.length).to.be.greaterThan(20);
    expect(writes.filter((s) => !s.responses[409]).map((s) => `${s.method} ${s.path}`)).to.deep.equal([]);
  });
});

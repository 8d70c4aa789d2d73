import { expect } from 'chai';
import { apiComment, apiRequestIdOf } from '../../../domain/positions/apiComment.js';

describe("the reference's API|<requestId>| comment prefix", () => {
  it('prepends API|<requestId>| to the comment, and to no comment', () => {
    expect(apiComment(602, 'breakout')).to.equal('API|602|breakout');
    expect(apiComment(0, null)).to.equal('API|0|');
  });

  it('reads the requestId back from a prefixed comment', () => {
    expect(apiRequestIdOf('API|602|breakout')).to.equal('602');
    expect(apiRequestIdOf('API|0|')).to.equal('0');
    expect(apiRequestIdOf(apiComment(999, 'API|5|nested'))).to.equal('999');
  });

  it('reads none from comments without the prefix', () => {
    for (const comment of [null, '', 'breakout', 'API|', 'API||x', 'API|1234|x', 'api|5|x', ' API|5|x'])
      expect(apiRequestIdOf(comment), String(comment)).to.equal(null);
  });
});

// domain/shared/uuidV5.ts answers what the `uuid` package's v5 answers: the slave order ids, copy
// outcome ids and positions event ids derived from it must never change.
import { expect } from 'chai';
import { v5 } from 'uuid';
import { SLAVE_ORDER_ID_NAMESPACE, slaveOrderId } from '../../domain/copy/orderIds.js';
import { uuidV5 } from '../../domain/shared/uuidV5.js';
import { COPY_EVENT_NAMESPACE } from '../../engine/copy/outcomes.js';

const NAMES = [
  '',
  'a',
  '7bbdeda0-c9dd-52c1-922e-f14c34bb015f/copier-1/open',
  'account-9/position:123456789/closed',
  'éß€ 𝄞 中文 /emoji 🙂',
  'x'.repeat(10_000),
  'é'.repeat(5_000),
  // Around SHA-1's block edges: 16 namespace bytes + the name, then 9 bytes of padding at least.
  ...[38, 39, 40, 47, 48, 102, 103, 104, 111, 112].map((n) => 'b'.repeat(n)),
  ...[38, 39, 40].map((n) => `${'c'.repeat(n - 2)}é`),
  // Around the kept buffer's edge (336 UTF-16 units fit, 3 bytes each at most): ASCII, 2-, 3- and 4-byte characters.
  ...[335, 336, 337].flatMap((n) => ['d'.repeat(n), 'é'.repeat(n), '€'.repeat(n), `${'🙂'.repeat(Math.floor(n / 2))}${n % 2 ? 'e' : ''}`]),
  ...Array.from({ length: 200 }, (_, i) => `${i}/${(i * 7919).toString(36)}/${'n'.repeat(i % 64)}`),
];

describe('domain/shared/uuidV5: the same ids as uuid v5', () => {
  it('answers what uuid v5 answers, for every namespace the engine uses and names of any length and script', () => {
    for (const namespace of [SLAVE_ORDER_ID_NAMESPACE, COPY_EVENT_NAMESPACE, '6BA7B811-9DAD-11D1-80B4-00C04FD430C8']) {
      for (const name of NAMES) expect(uuidV5(name, namespace), name.slice(0, 40)).to.equal(v5(name, namespace));
    }
  });

  it('keeps the slave order ids they always were', () => {
    expect(slaveOrderId('7bbdeda0-c9dd-52c1-922e-f14c34bb015f', 'copier-1', 'open')).to.equal(
      v5('7bbdeda0-c9dd-52c1-922e-f14c34bb015f/copier-1/open', SLAVE_ORDER_ID_NAMESPACE),
    );
    expect(slaveOrderId('e', 'c', 'close', 2)).to.equal(v5('e/c/close/2', SLAVE_ORDER_ID_NAMESPACE));
  });

  it('answers the same for the same name whatever was hashed before it', () => {
    const first = uuidV5('short', COPY_EVENT_NAMESPACE);
    uuidV5('y'.repeat(300), COPY_EVENT_NAMESPACE);
    uuidV5('ü'.repeat(300), SLAVE_ORDER_ID_NAMESPACE);
    expect(uuidV5('short', COPY_EVENT_NAMESPACE)).to.equal(first);
  });

  it('refuses a namespace that is no UUID', () => {
    expect(() => uuidV5('a', 'not-a-uuid')).to.throw(TypeError);
  });
});

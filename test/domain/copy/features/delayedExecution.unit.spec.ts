import { delayedExecution } from '../../../../domain/copy/features/delayedExecution.js';
import { given, masterClosed, masterOpened, NOW, slaveCopy } from '../given.js';

describe('feature: FeatureDelayedExecutionDTO', () => {
  const delay = { feature: delayedExecution, settings: { delaySeconds: 90 } };

  it('holds an open back until delaySeconds after the master opened', () =>
    given({ features: [delay], eventTime: NOW })
      .when(masterOpened())
      .then([{ type: 'defer', until: '2026-01-07T10:01:30.000Z', by: 'FeatureDelayedExecutionDTO' }]));

  it('opens when decided again at or after that time', () =>
    given({ features: [delay], eventTime: NOW, now: '2026-01-07T10:01:30.000Z', deferredBy: ['FeatureDelayedExecutionDTO'] })
      .when(masterOpened())
      .then([{ type: 'open' }]));

  it('does not hold back a close', () =>
    given({ features: [delay], eventTime: NOW, slave: { copies: [slaveCopy()] } })
      .when(masterClosed())
      .then([{ type: 'close' }]));
});

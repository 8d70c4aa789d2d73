// GET /types/copierSettings/availableFields is generated from the copier schema (CopierUpdateDTO, what
// PUT .../copiers/{copierId} validates with): every setting is listed, nothing that is not one, and a
// member added to the schema is listed without anyone editing the list.
import { type TSchema, Type } from '@sinclair/typebox';
import { expect } from 'chai';
import { CopierDTO, CopierUpdateDTO } from '../../api/copiers/schemas.js';
import { COPIER_REFERENCE_MEMBERS, copierSettingFields } from '../../api/types/copierSettingFields.js';

describe('copier setting fields (GET /types/copierSettings/availableFields)', () => {
  it('lists every setting of the copier, typed, and no identity, reference or read-only member', () => {
    const fields = copierSettingFields();
    const names = fields.map((f) => f.field);
    expect(names).to.include.members(['active', 'monitorOnly', 'multiplier', 'scaleType', 'fixedLotSize', 'reverse', 'customComment', 'maxSlippage']);
    for (const notASetting of ['id', 'created', 'toAccountId', 'fromAccountAlias', 'fromStrategyName', ...COPIER_REFERENCE_MEMBERS]) {
      expect(names, notASetting).not.to.include(notASetting);
    }
    // every member the copier answers but its identity and references is a setting: the two schemas agree
    const answered = Object.keys(CopierDTO.properties).filter(
      (k) => !['id', 'created', 'toAccountId', 'fromAccountAlias', 'fromStrategyName', ...COPIER_REFERENCE_MEMBERS].includes(k),
    );
    expect([...names].sort()).to.deep.equal([...answered].sort());
    const byName = new Map(fields.map((f) => [f.field, f]));
    expect(byName.get('multiplier')).to.deep.include({ dto: 'CopierDTO', type: 'number', entry: 'CopierDTO: multiplier' });
    expect(byName.get('scaleType')?.type).to.equal('ScaleTypeDTO');
    expect(byName.get('active')?.type).to.equal('boolean');
    expect(byName.get('customMagicNumber')?.type).to.equal('integer');
    expect(byName.get('customComment')?.type).to.equal('string');
    expect(byName.get('maxSlippage')?.description).to.include('points');
    expect(new Set(names).size).to.equal(names.length);
  });

  it('shows a member added to the copier schema at once, and drops one removed', () => {
    const { multiplier: _removed, ...rest } = CopierUpdateDTO.properties as Record<string, TSchema>;
    const changed = Type.Object({
      ...rest,
      trailingStopPoints: Type.Optional(Type.Integer({ minimum: 0, description: 'a new setting' })),
      echoed: Type.Optional(Type.Unknown({ readOnly: true })),
    });
    const fields = copierSettingFields(changed);
    expect(fields.find((f) => f.field === 'trailingStopPoints')).to.deep.equal({
      dto: 'CopierDTO',
      field: 'trailingStopPoints',
      type: 'integer',
      entry: 'CopierDTO: trailingStopPoints',
      description: 'a new setting',
    });
    expect(fields.map((f) => f.field)).not.to.include.members(['multiplier', 'echoed']);
    expect(fields).to.have.length(copierSettingFields().length);
  });
});

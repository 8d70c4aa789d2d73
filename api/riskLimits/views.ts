// Kept only for api/trading/information.ts, which imports accountProtections from here: the protections'
// DTO mappers live in dto.ts. Remove this file once that import names ./dto.js.
export { accountProtections } from './dto.js';

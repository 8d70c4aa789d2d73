// The comment and magic number a slave order carries (CopierDTO: hideComment, customComment,
// copyOriginalComment, customMagicNumber, copyMagicNumber).
import type { CopierSettings } from '../copier/settings.js';

/**
 * hideComment wins over everything (the slave order carries no comment), then a non-blank
 * customComment, then the master's comment when copyOriginalComment; otherwise none (the reference
 * puts a tracking comment there; our copies are tracked by their client order ids instead).
 */
export const slaveComment = (copier: CopierSettings, masterComment: string | null): string | null => {
  if (copier.hideComment) return null;
  if (copier.customComment !== null && copier.customComment.trim() !== '') return copier.customComment;
  return copier.copyOriginalComment ? masterComment : null;
};

/** customMagicNumber (never 0: the reference refuses it) wins, then the master's magic number when copyMagicNumber; otherwise none. */
export const slaveMagicNumber = (copier: CopierSettings, masterMagicNumber: number | null): number | null => {
  if (copier.customMagicNumber !== null) return copier.customMagicNumber;
  return copier.copyMagicNumber ? masterMagicNumber : null;
};

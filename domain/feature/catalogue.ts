// Every feature the service knows (spec "Feature DTOs"), by its DTO name. Copier features carry the
// copy rules (domain/copy/features); account and project features arrive with their areas.
import { dataCollectorFeature } from '../analytics/dataCollector.js';
import { copierFeatures } from '../copy/features/catalogue.js';
import type { FeatureDefinition } from './definition.js';

/** Account features without copy rules: their areas read them (the data collector's sampler, ...). */
const accountFeatures: readonly FeatureDefinition<object>[] = [dataCollectorFeature as unknown as FeatureDefinition<object>];

export const featureCatalogue: readonly FeatureDefinition<object>[] = [...copierFeatures, ...accountFeatures];

const byType = new Map(featureCatalogue.map((f) => [f.type, f]));

export const featureDefinition = (type: string): FeatureDefinition<object> | undefined => byType.get(type);

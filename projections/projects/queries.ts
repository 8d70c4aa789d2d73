import type { Kysely } from 'kysely';
import type { ProjectSettings } from '../../domain/project/settings.js';
import type { ReadModels } from '../schema.js';

export interface ProjectRow {
  readonly id: string;
  readonly name: string;
  readonly owner: string | null;
  readonly settings: ProjectSettings;
  readonly dedicated: boolean;
  readonly created: Date;
  readonly updated: Date;
}

export const findProject = (db: Kysely<ReadModels>, projectId: string): Promise<ProjectRow | undefined> =>
  db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst() as Promise<ProjectRow | undefined>;

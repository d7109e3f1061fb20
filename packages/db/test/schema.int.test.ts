// schema.prisma and the migrated database must agree: every model maps to a table and every
// scalar field to a column of a compatible type, and no column is missing from the model.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/db';
import { findRepoRoot } from '../src/index';

interface Field {
  name: string;
  column: string;
  type: string;
}

const PRISMA_TO_PG: Record<string, string[]> = {
  String: ['text', 'character varying'],
  Int: ['integer'],
  BigInt: ['bigint'],
  Float: ['double precision'],
  Boolean: ['boolean'],
  DateTime: ['timestamp with time zone'],
  Json: ['jsonb'],
  Bytes: ['bytea'],
  Decimal: ['numeric'],
};

/** schema.prisma's enums: their PostgreSQL type name (@@map) and labels */
function parseEnums(schema: string): Map<string, { type: string; labels: string[] }> {
  const enums = new Map<string, { type: string; labels: string[] }>();
  for (const m of schema.matchAll(/^enum (\w+) \{([\s\S]*?)^\}/gm)) {
    const body = m[2] ?? '';
    const labels = body
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => /^\w+$/.test(l));
    enums.set(m[1] ?? '', { type: /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? m[1] ?? '', labels });
  }
  return enums;
}

function parseModels(schema: string): Map<string, Field[]> {
  const models = new Map<string, Field[]>();
  const names = new Set([...schema.matchAll(/^model (\w+) \{/gm)].map((m) => m[1]));
  for (const m of schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const body = m[2] ?? '';
    const table = /@@map\("([^"]+)"\)/.exec(body)?.[1] ?? m[1] ?? '';
    const fields: Field[] = [];
    for (const line of body.split('\n')) {
      const f = /^\s+(\w+)\s+(\w+)(\[\])?(\?)?(.*)$/.exec(line);
      if (!f || line.trim().startsWith('@@') || line.trim().startsWith('//')) continue;
      const [, name, type, list, , rest] = f as unknown as [
        string,
        string,
        string,
        string | undefined,
        string | undefined,
        string,
      ];
      if (names.has(type)) continue; // relation field
      const column = /@map\("([^"]+)"\)/.exec(rest)?.[1] ?? name;
      fields.push({ name, column, type: list ? `${type}[]` : type });
    }
    models.set(table, fields);
  }
  return models;
}

describe('schema.prisma and the migrations agree', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.destroy());

  it('every model field is a column of a compatible type, and every column is modelled', async () => {
    const schema = readFileSync(join(findRepoRoot(), 'prisma/schema.prisma'), 'utf8');
    const models = parseModels(schema);
    const enums = parseEnums(schema);
    expect(models.size).toBeGreaterThan(10);
    for (const [table, fields] of models) {
      const { rows } = await db.pool.query<{ column_name: string; data_type: string; udt_name: string }>(
        `SELECT column_name, data_type, udt_name FROM information_schema.columns
         WHERE table_schema = 'public' AND table_name = $1`,
        [table],
      );
      expect(rows.length, `table ${table} exists`).toBeGreaterThan(0);
      const columns = new Map(rows.map((r) => [r.column_name, r]));
      for (const f of fields) {
        const col = columns.get(f.column);
        expect(col, `${table}.${f.column} (${f.name})`).toBeDefined();
        if (!col) continue;
        const enumType = enums.get(f.type);
        if (enumType) {
          expect(col.udt_name, `${table}.${f.column}: ${f.type}`).toBe(enumType.type);
          const { rows: labels } = await db.pool.query<{ label: string }>(
            `SELECT e.enumlabel AS label FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid
             WHERE t.typname = $1 ORDER BY e.enumsortorder`,
            [enumType.type],
          );
          expect(
            labels.map((l) => l.label),
            `labels of ${enumType.type}`,
          ).toEqual(enumType.labels);
        } else if (f.type.endsWith('[]')) {
          expect(col.data_type, `${table}.${f.column}`).toBe('ARRAY');
        } else {
          expect(PRISMA_TO_PG[f.type], `${table}.${f.column}: ${f.type} vs ${col.data_type}`).toContain(col.data_type);
        }
      }
      const modelled = new Set(fields.map((f) => f.column));
      const unmodelled = rows.map((r) => r.column_name).filter((c) => !modelled.has(c));
      expect(unmodelled, `columns of ${table} missing from schema.prisma`).toEqual([]);
    }
  });
});

-- A hand-written export in the layout of Nsight Systems 2021-2022 (schema 2.x): EXPORT_META_DATA,
-- NVTX_EVENTS with text and textId, names in StringIds, ThreadNames, an EXPORT_USER in a legacy
-- Windows code page (0xDF is not UTF-8) and a kernel name that is not UTF-8 either. 3 ranges named
-- "train_step" (matched by --step-range train_step, not by the default "step").
CREATE TABLE EXPORT_META_DATA (name TEXT NOT NULL, value TEXT);
INSERT INTO EXPORT_META_DATA VALUES ('EXPORT_SCHEMA_VERSION', '2.7.1'), ('EXPORT_PRODUCT_VERSION', '2021.3.1.54'),
  ('EXPORT_USER', CAST(x'4765DF' AS TEXT));
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES (1, CAST(x'6B65726E656CFF5F61' AS TEXT)), (2, 'cudaLaunchKernel_v7000'), (3, 'train_step'),
  (4, 'worker');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
  start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL,
  streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, mangledName INTEGER, registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL,
  gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL,
  staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL, graphNodeId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1500, 1800, 0, 1, 7, 1, 5, 1, 1, NULL, 8, 1, 1, 1, 32, 1, 1, 0, 0, NULL),
  (2500, 2800, 0, 1, 7, 2, 5, 1, 1, NULL, 8, 1, 1, 1, 32, 1, 1, 0, 0, NULL),
  (3500, 3800, 0, 1, 7, 3, 5, 1, 1, NULL, 8, 1, 1, 1, 32, 1, 1, 0, 0, NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
  start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, globalTid INTEGER,
  correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES
  (1100, 1200, 1, (5 << 24) | 6, 1, 2, 0, NULL), (2100, 2200, 1, (5 << 24) | 6, 2, 2, 0, NULL),
  (3100, 3200, 1, (5 << 24) | 6, 3, 2, 0, NULL);
CREATE TABLE NVTX_EVENTS (
  start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, category INTEGER, color INTEGER,
  text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER, domainId INTEGER);
INSERT INTO NVTX_EVENTS VALUES
  (1000, 2000, 59, NULL, NULL, NULL, NULL, (5 << 24) | 6, NULL, 3, 0),
  (2000, 3000, 59, NULL, NULL, NULL, NULL, (5 << 24) | 6, NULL, 3, 0),
  (3000, 4000, 59, NULL, NULL, NULL, NULL, (5 << 24) | 6, NULL, 3, 0);
CREATE TABLE ThreadNames (nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER);
INSERT INTO ThreadNames VALUES (4, 0, (5 << 24) | 6);

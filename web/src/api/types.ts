/**
 * Shapes the server answers, declared once in src/shared/api (the server's serializers return
 * them): re-exported here so the web keeps one import path. Money in cents.
 */
export type { BoardNumber, Draw, DrawBoard, DrawCounts, DrawStatus, NumberStatus, PendingDraw } from '../../../src/shared/api/draws';
export type { CatalogueItem, CatalogueSection, OpenDrawAnswer, Product, ProductDetail, PublicConfig } from '../../../src/shared/api/catalogue';

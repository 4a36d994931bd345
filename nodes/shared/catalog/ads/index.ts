import type { Group } from '../dsl';
import { adCopy, adProjects, adVariants } from './adProjects';
import { brandKits } from './brandKits';
import { marketingTemplates } from './marketing';
import { products } from './products';

/** Resources of the MediaGen Ads node (spec doc 2: brand kits, products, ads, marketing). */
export const adsGroups: Group[] = [
	brandKits,
	products,
	adProjects,
	adCopy,
	adVariants,
	marketingTemplates,
];

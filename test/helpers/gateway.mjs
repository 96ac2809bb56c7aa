// The tests start their private gateways with the tool kit's launcher (scripts/lib/gateway.mjs).
export { checkGatewayEnv, gatewayBin, needsGateway, startGateway } from '../../scripts/lib/gateway.mjs';

import { ListScreen } from '../../list-screen';
import { vehicleTypesScreen } from './vehicle-types-screen';

export default function VehicleTypesPage() {
  return <ListScreen def={vehicleTypesScreen} />;
}

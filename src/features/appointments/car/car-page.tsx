import { ListScreen } from '../../../list-screen';
import { carApplicationsScreen } from './car-screen';

export default function CarApplicationsPage() {
  return <ListScreen def={carApplicationsScreen} />;
}

import { ListScreen } from '../../../list-screen';
import { personApplicationsScreen } from './person-screen';

export default function PersonApplicationsPage() {
  return <ListScreen def={personApplicationsScreen} />;
}

import { ListScreen } from '../../list-screen';
import { usersScreen } from './users-screen';

export default function UsersPage() {
  return <ListScreen def={usersScreen} />;
}

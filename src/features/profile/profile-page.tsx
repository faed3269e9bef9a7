import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Form, Input, List, Radio, Skeleton, Space } from 'antd-mobile';
import { useId, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { z } from 'zod';
import { enums } from '../../../domain/enums';
import { looksMasked } from '../../../domain/personal-data';
import { profileUpdate, userApi } from '../../../domain/schemas/user';
import { largeTextOn, setLargeText } from '../../app/large-text';
import { confirmLogout } from '../../app/logout';
import { encryptContent } from '../../lib/crypto';
import { ApiError, call } from '../../lib/http';
import { meQuery } from '../../lib/me';
import { useIsDesktop } from '../../lib/use-media';
import './profile.css';
import { showToast } from '../../lib/feedback';

interface ProfileForm {
  userName: string;
  gender: number;
  phone: string;
  password: string;
}

const selfQuery = { queryKey: ['user', 'self'], queryFn: () => call(userApi.self, {}) };

/** Inline messages come from the same zod schema the server validates with. */
const rule = (schema: z.ZodType) => ({
  validator: (_: unknown, value: unknown) => {
    const r = schema.safeParse(value);
    return r.success ? Promise.resolve() : Promise.reject(new Error(r.error.issues[0]?.message ?? '格式不正确'));
  },
});

const fields = profileUpdate.shape;

export default function ProfilePage() {
  const isDesktop = useIsDesktop();
  const navigate = useNavigate();
  const client = useQueryClient();
  const [form] = Form.useForm<ProfileForm>();
  const self = useQuery(selfQuery);
  const keptPhone = (phone: unknown) => typeof phone === 'string' && phone === self.data?.phone && looksMasked('phone', phone);

  const save = useMutation({
    mutationFn: async (values: ProfileForm) => {
      // The phone shows masked (docs/personal-data.md): left as shown, it goes back as is and the server keeps the stored number.
      const payload = keptPhone(values.phone) ? { ...profileUpdate.omit({ phone: true }).parse(values), phone: values.phone } : profileUpdate.parse(values);
      await call(userApi.updateSelf, { content: await encryptContent(payload) });
    },
    onSuccess: () => {
      showToast({ icon: 'success', content: '编辑成功！' });
      form.setFieldValue('password', '');
      void client.invalidateQueries({ queryKey: selfQuery.queryKey });
      void client.invalidateQueries({ queryKey: meQuery.queryKey });
    },
    onError: (err) => {
      showToast({ icon: 'fail', content: `编辑错误：${err.message}` });
      if (err instanceof ApiError && err.fieldErrors.length) {
        form.setFields(err.fieldErrors.filter((f) => f.field in fields).map((f) => ({ name: f.field as keyof ProfileForm, errors: [f.message] })));
      }
    },
  });

  return (
    <div className="page profile">
      <section className="card profile-head">
        <span className="profile-avatar">{self.data?.userName.slice(0, 1) ?? ''}</span>
        <div className="profile-head-text">
          {self.data ? (
            <>
              <div className="profile-name">{self.data.userName}</div>
              <div className="profile-sub">{self.data.departName ?? '未分配部门'}</div>
            </>
          ) : (
            <Skeleton.Paragraph lineCount={2} animated />
          )}
        </div>
      </section>

      {self.error ? (
        <section className="card profile-error">
          <p>个人信息加载失败：{self.error.message}</p>
          <Button size="small" onClick={() => void self.refetch()}>
            重试
          </Button>
        </section>
      ) : !self.data ? (
        <section className="card profile-skeleton">
          <Skeleton.Paragraph lineCount={6} animated />
        </section>
      ) : (
        <>
          <List header="账号信息" className="card card-list profile-list">
            <List.Item extra={self.data.account}>账号</List.Item>
            <List.Item extra={self.data.roleNames.length ? self.data.roleNames.join('、') : '无'}>角色</List.Item>
            <List.Item extra={self.data.departName ?? '未分配'}>部门</List.Item>
          </List>

          <Form
            form={form}
            className="card profile-form"
            layout="horizontal"
            mode="card"
            requiredMarkStyle="asterisk"
            initialValues={{ userName: self.data.userName, gender: self.data.gender, phone: self.data.phone, password: '' }}
            onFinish={(values) => save.mutate(values)}
            footer={
              <Button block type="submit" color="primary" size="large" loading={save.isPending}>
                保存修改
              </Button>
            }
          >
            <Form.Header>编辑资料</Form.Header>
            <Form.Item name="userName" label="用户名" required rules={[rule(fields.userName)]}>
              <Input placeholder="请输入用户名" maxLength={30} clearable />
            </Form.Item>
            <Form.Item name="gender" label="性别" required rules={[rule(fields.gender)]}>
              <Radio.Group>
                <Space>
                  {enums.gender.map((o) => (
                    <Radio key={o.value} value={o.value}>
                      {o.label}
                    </Radio>
                  ))}
                </Space>
              </Radio.Group>
            </Form.Item>
            <Form.Item name="phone" label="手机号" required rules={[{ validator: (r, v) => (keptPhone(v) ? Promise.resolve() : rule(fields.phone).validator(r, v)) }]}>
              <Input placeholder="请输入11位手机号" inputMode="tel" maxLength={11} clearable />
            </Form.Item>
            <Form.Item name="password" label="密码" rules={[rule(fields.password)]} help="留空表示不修改；新密码8-64位，须同时包含字母和数字">
              <Input type="password" placeholder="不修改请留空" autoComplete="new-password" clearable />
            </Form.Item>
          </Form>
        </>
      )}

      <LargeTextSetting />

      <List className="card card-list profile-list">
        <List.Item onClick={() => navigate('/about')} arrowIcon>
          版本信息
        </List.Item>
      </List>

      {!isDesktop && (
        <Button block className="profile-logout" color="danger" fill="outline" size="large" onClick={() => void confirmLogout()}>
          退出登录
        </Button>
      )}
    </div>
  );
}

/** 大字模式: this device's text and targets, larger at once (src/app/large-text.ts). A switch a keyboard and a screen reader can work, which antd-mobile's Switch is not. */
function LargeTextSetting() {
  const [on, setOn] = useState(largeTextOn);
  const id = useId();
  const toggle = () => {
    setLargeText(!on);
    setOn(!on);
  };
  return (
    <List header="显示" className="card card-list profile-list">
      <List.Item
        description={<span id={`${id}-hint`}>文字放大到 18 像素以上，按钮随之放大；只对本设备有效</span>}
        extra={
          <button type="button" role="switch" aria-checked={on} aria-labelledby={`${id}-name`} aria-describedby={`${id}-hint`} className={`profile-switch${on ? ' is-on' : ''}`} onClick={toggle}>
            <span className="profile-switch-thumb" />
          </button>
        }
      >
        <span id={`${id}-name`}>大字模式</span>
      </List.Item>
    </List>
  );
}
